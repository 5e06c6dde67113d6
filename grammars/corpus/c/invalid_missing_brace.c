#include <stdio.h>

int main(void)
{
    for (int i = 0; i < 3; i++) {
        printf("%d\n", i);
    return 0;
}
