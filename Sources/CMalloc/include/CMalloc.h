#pragma once

/* Caps glibc's malloc arenas at n for the rest of the process (mallopt M_ARENA_MAX); 1 when it took. DECISIONS.md,
   "Two malloc arenas". */
int hl_malloc_arenas(int n);
