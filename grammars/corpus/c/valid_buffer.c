#include <stddef.h>
#include <stdint.h>

#define BUF_SIZE 256
#define MIN(a, b) ((a) < (b) ? (a) : (b))

typedef enum { OK = 0, ERR_FULL = -1 } status_t;

typedef struct {
    uint8_t data[BUF_SIZE];
    size_t len;
} buffer_t;

status_t buffer_append(buffer_t *buf, const uint8_t *src, size_t n)
{
    size_t room = BUF_SIZE - buf->len;
    size_t take = MIN(room, n);
    for (size_t i = 0; i < take; ++i) {
        buf->data[buf->len++] = src[i];
    }
    return take == n ? OK : ERR_FULL;
}

static const char *names[] = { "ok", "full", NULL };

const char *status_name(status_t s)
{
    switch (s) {
    case OK:
        return names[0];
    default:
        return names[1];
    }
}
