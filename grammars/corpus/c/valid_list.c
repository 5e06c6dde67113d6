#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
    int value;
    struct node *next;
};

static struct node *push(struct node *head, int value)
{
    struct node *n = malloc(sizeof *n);
    if (n == NULL) {
        perror("malloc");
        exit(EXIT_FAILURE);
    }
    n->value = value;
    n->next = head;
    return n;
}

int main(int argc, char **argv)
{
    struct node *head = NULL;
    for (int i = 1; i < argc; i++)
        head = push(head, atoi(argv[i]));
    for (struct node *p = head; p != NULL; p = p->next)
        printf("%d\n", p->value);
    return 0;
}
