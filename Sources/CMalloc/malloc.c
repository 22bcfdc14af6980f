#include "CMalloc.h"
#include <malloc.h>

int hl_malloc_arenas(int n) { return mallopt(M_ARENA_MAX, n); }

unsigned long long hl_malloc_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (unsigned long long)(m.uordblks + m.hblkhd);
}

int hl_malloc_trim(void) { return malloc_trim(0); }
