package com.example.bank;

import java.util.ArrayList;
import java.util.List;

/**
 * Account holds a balance. It records every transaction.
 * Not thread-safe.
 */
@Entity
public class Account extends Base implements Comparable<Account> {
    private final List<Long> history = new ArrayList<>();
    private long balance;
    public static final String KIND = "checking";

    /** Account opens an empty account. */
    public Account() {
        super();
        this.balance = 0;
        this.history.clear();
        audit("open");
    }

    /**
     * deposit adds amount. Negative amounts are rejected.
     * @param amount cents
     */
    public void deposit(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("negative");
        }
        balance += amount;
        history.add(amount);
    }

    @Override
    public int compareTo(Account o) {
        return Long.compare(balance, o.balance);
    }

    private void audit(String what) {
        System.out.println(what);
        System.out.println(balance);
        System.out.println(history.size());
    }

    private static long round(long v) {
        long r = v / 100;
        r = r * 100;
        return r;
    }

    interface Listener {
        void onChange(Account a);
    }
}
