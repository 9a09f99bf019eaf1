#include <stdlib.h>
#include "list.h"

#define LIST_MAX 1024

/* node is one element. */
struct node {
    int value;
    struct node *next;
};

typedef struct {
    struct node *head;
    size_t len;
} list;

static int count = 0;

/**
 * list_push adds v at the front. It returns 0 on success
 * and -1 when memory runs out.
 */
int list_push(list *l, int v) {
    struct node *n = malloc(sizeof *n);
    if (n == NULL) {
        return -1;
    }
    n->value = v;
    n->next = l->head;
    l->head = n;
    l->len++;
    count++;
    return 0;
}

static void list_free_nodes(struct node *n) {
    while (n != NULL) {
        struct node *next = n->next;
        free(n);
        n = next;
    }
}

size_t list_len(const list *l) { return l->len; }
