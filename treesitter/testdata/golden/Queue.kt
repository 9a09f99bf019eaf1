package com.example.queue

import kotlinx.coroutines.channels.Channel
import java.util.*

/**
 * Queue buffers jobs. It is bounded.
 * More text.
 */
class Queue(val capacity: Int) : Base() {
    private val items = ArrayDeque<Job>()
    val size: Int
        get() = items.size

    /** push adds a job. It fails when full. */
    fun push(job: Job): Boolean {
        if (items.size >= capacity) {
            return false
        }
        items.addLast(job)
        return true
    }

    private fun drain() {
        while (items.isNotEmpty()) {
            items.removeFirst()
        }
        println("drained")
    }

    fun peek(): Job? = items.firstOrNull()
}

fun main(args: Array<String>) {
    val q = Queue(10)
    q.push(Job())
    println(q.size)
    println(args)
}
