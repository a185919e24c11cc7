/* A lean C reference for the compiled playouts: uniform random 3- or 4-player games of
 * Marrakech under the standard rules (/work/shared/RULES.md, docs/rules.md), from the
 * opening to the end.
 *
 * It is what a careful C programmer would write for speed without tricks: the board as
 * bytes (colour and carpet number per square), one 49-bit board per colour to grow a
 * tithe region (R11), tables for Assam's moves (R2, R10) and the placements around each
 * square (R14, R15) built at start-up, locals for the rest. It plays the same games as
 * marrakech.fast.kernels.playouts for the same seed, because it draws from the same
 * SplitMix64 stream in the same order (orient: 3 outcomes; roll: a face of the die, R3;
 * place: one of the legal placements in slot-number order), which
 * tests/fast/test_reference_c.py checks game by game and statistically.
 *
 * Usage: playouts PLAYERS GAMES SEED [CARPETS MONEY [OUT_FILE]]
 * Prints one line: games, wall seconds, CPU seconds, then sums (plies, turns, tithes,
 * tithe dirhams, eliminated seats, places, placement options, then per seat: score,
 * dirhams, wins). With OUT_FILE, writes per game the kernel's result row as int32:
 * scores, dirhams, ranks (one per seat each), then the 7 counters.
 *
 * Build: cc -O2 -o playouts playouts.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE 7
#define SQUARES 49
#define SLOTS 84
#define CENTRE 24
enum { N, E, S, W };

static const uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL;
static const uint64_t MIX1 = 0xBF58476D1CE4E5B9ULL;
static const uint64_t MIX2 = 0x94D049BB133111EBULL;
static const uint64_t SALT_PLAYOUTS = 0x3C6EF372FE94F82BULL;
static const int DIE[6] = {1, 2, 2, 3, 3, 4}; /* R3 */

static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * MIX1;
    z = (z ^ (z >> 27)) * MIX2;
    return z ^ (z >> 31);
}

/* A uniform integer in [0, k): multiply-shift on the top 32 bits. */
static inline int below(uint64_t *state, uint64_t k) {
    *state += GOLDEN;
    return (int)(((mix64(*state) >> 32) * k) >> 32);
}

/* -- tables ------------------------------------------------------------------------- */

static uint8_t path_end[SQUARES * 4][5]; /* (square*4+facing, steps) -> square*4+facing */
static uint8_t slot_low[SLOTS], slot_high[SLOTS];
static uint8_t cand[SQUARES][12], cand_n[SQUARES];
static uint64_t not_file_a, not_file_g;

/* One step of Assam, following the border arcs off the board (R2). */
static int step(int position) {
    int sq = position >> 2, facing = position & 3;
    int file = sq % SIZE, rank = sq / SIZE;
    switch (facing) {
    case N:
        if (rank < SIZE - 1) return (sq + SIZE) * 4 + N;
        if (file == SIZE - 1) return sq * 4 + W;                       /* loop at g7 */
        return (rank * SIZE + (file ^ 1)) * 4 + S;                     /* a7-b7 c7-d7 e7-f7 */
    case E:
        if (file < SIZE - 1) return (sq + 1) * 4 + E;
        if (rank == SIZE - 1) return sq * 4 + S;                       /* loop at g7 */
        return ((rank ^ 1) * SIZE + file) * 4 + W;                     /* g6-g5 g4-g3 g2-g1 */
    case S:
        if (rank > 0) return (sq - SIZE) * 4 + S;
        if (file == 0) return sq * 4 + E;                              /* loop at a1 */
        return (rank * SIZE + (((file - 1) ^ 1) + 1)) * 4 + N;         /* b1-c1 d1-e1 f1-g1 */
    default:
        if (file > 0) return (sq - 1) * 4 + W;
        if (rank == 0) return sq * 4 + N;                              /* loop at a1 */
        return (((((rank - 1) ^ 1) + 1) * SIZE) + file) * 4 + E;       /* a7-a6 a5-a4 a3-a2 */
    }
}

static int adjacent(int a, int b) {
    int fa = a % SIZE, fb = b % SIZE;
    if (a / SIZE == b / SIZE) return abs(fa - fb) == 1;
    return fa == fb && abs(a - b) == SIZE;
}

static void build_tables(void) {
    for (int p = 0; p < SQUARES * 4; p++) {
        int at = p;
        path_end[p][0] = (uint8_t)p;
        for (int k = 1; k <= 4; k++) {
            at = step(at);
            path_end[p][k] = (uint8_t)at;
        }
    }
    int n = 0; /* slots: horizontal ones rank by rank, then vertical ones */
    for (int rank = 0; rank < SIZE; rank++)
        for (int file = 0; file < SIZE - 1; file++, n++) {
            slot_low[n] = (uint8_t)(rank * SIZE + file);
            slot_high[n] = (uint8_t)(rank * SIZE + file + 1);
        }
    for (int rank = 0; rank < SIZE - 1; rank++)
        for (int file = 0; file < SIZE; file++, n++) {
            slot_low[n] = (uint8_t)(rank * SIZE + file);
            slot_high[n] = (uint8_t)(rank * SIZE + file + SIZE);
        }
    /* R14, R15: a half beside Assam's square, neither half on it; in slot order. */
    for (int sq = 0; sq < SQUARES; sq++) {
        cand_n[sq] = 0;
        for (int slot = 0; slot < SLOTS; slot++) {
            int lo = slot_low[slot], hi = slot_high[slot];
            if (lo != sq && hi != sq && (adjacent(lo, sq) || adjacent(hi, sq)))
                cand[sq][cand_n[sq]++] = (uint8_t)slot;
        }
    }
    for (int sq = 0; sq < SQUARES; sq++) {
        if (sq % SIZE != 0) not_file_a |= 1ULL << sq;
        if (sq % SIZE != SIZE - 1) not_file_g |= 1ULL << sq;
    }
}

/* -- one game -------------------------------------------------------------------------- */

enum { ST_PLIES, ST_TURNS, ST_TITHES, ST_TITHE_DIRHAMS, ST_OUT, ST_PLACES, ST_OPTIONS, STATS };

typedef struct {
    uint8_t colour[SQUARES];  /* 0 empty, else 1 + colour */
    uint16_t carpet[SQUARES]; /* which carpet shows there (0 none) */
    uint64_t bits[4];         /* squares showing each colour */
    int money[4], hand[4], out_order[4];
    int nout, outmask, left;  /* seats out, as a mask; carpets left in all hands */
} Game;

/* R11: the squares of the colour region holding sq (sides only, Assam's square counts). */
static int region_size(const Game *g, int sq) {
    uint64_t same = g->bits[g->colour[sq] - 1];
    uint64_t region = 1ULL << sq, grown;
    for (;;) {
        grown = region | (region << 7) | (region >> 7) | ((region & not_file_g) << 1) |
                ((region & not_file_a) >> 1);
        grown &= same;
        if (grown == region) break;
        region = grown;
    }
    return __builtin_popcountll(region);
}

/* The next seat clockwise still in and holding carpets (the game is not over). */
static int next_seat(const Game *g, int turn, int players) {
    for (int k = 1; k <= players; k++) {
        int seat = (turn + k) % players;
        if (!((g->outmask >> seat) & 1) && g->hand[seat] > 0) return seat;
    }
    return turn;
}

static void play(Game *g, int players, int carpets, int money, uint64_t *rng, int32_t *row) {
    memset(g, 0, sizeof *g);
    for (int p = 0; p < players; p++) {
        g->money[p] = money;
        g->hand[p] = carpets;
    }
    g->left = carpets * players;
    int assam = CENTRE * 4 + N, turn = 0, next_carpet = 1;
    int stats[STATS] = {0};
    for (;;) {
        /* R9: keep Assam's facing or turn him a quarter left or right. */
        int turn_by = below(rng, 3);
        assam = (assam & ~3) | (((assam & 3) + turn_by - 1) & 3);
        stats[ST_TURNS]++;
        /* R10: roll and move. */
        assam = path_end[assam][DIE[below(rng, 6)]];
        stats[ST_PLIES] += 2;
        int sq = assam >> 2;
        if (g->colour[sq]) {
            int owner = g->colour[sq] - 1; /* one colour per seat at 3-4 players */
            if (owner != turn && !((g->outmask >> owner) & 1)) { /* R11, R12 */
                int due = region_size(g, sq), have = g->money[turn];
                int paid = have >= due ? due : have;
                g->money[owner] += paid;
                g->money[turn] = have - paid;
                stats[ST_TITHES]++;
                stats[ST_TITHE_DIRHAMS] += paid;
                if (have < due) { /* R13: out at once */
                    g->out_order[g->nout++] = turn;
                    g->outmask |= 1 << turn;
                    g->left -= g->hand[turn];
                    g->hand[turn] = 0;
                    if (players - g->nout <= 1 || g->left == 0) break; /* R19 */
                    turn = next_seat(g, turn, players);
                    continue;
                }
            }
        }
        /* R14-R16: the legal placements around Assam's square. */
        int legal[12], count = 0;
        for (int i = 0; i < cand_n[sq]; i++) {
            int slot = cand[sq][i];
            int c = g->carpet[slot_low[slot]];
            if (c == 0 || c != g->carpet[slot_high[slot]]) legal[count++] = slot;
        }
        stats[ST_PLACES]++;
        stats[ST_OPTIONS] += count;
        int slot = legal[below(rng, (uint64_t)count)];
        int lo = slot_low[slot], hi = slot_high[slot];
        for (int h = 0; h < 2; h++) { /* R17: the new carpet shows on both squares */
            int at = h ? hi : lo;
            if (g->colour[at]) g->bits[g->colour[at] - 1] &= ~(1ULL << at);
            g->colour[at] = (uint8_t)(turn + 1);
            g->carpet[at] = (uint16_t)next_carpet;
            g->bits[turn] |= 1ULL << at;
        }
        next_carpet++;
        g->hand[turn]--;
        g->left--;
        stats[ST_PLIES]++;
        if (g->left == 0) break; /* R19 */
        turn = next_seat(g, turn, players);
    }
    /* R20, R21: scores, then ranks (in seats by score then dirhams; out seats below,
     * the last out highest). */
    int64_t key[4];
    for (int p = 0; p < players; p++) {
        int score = __builtin_popcountll(g->bits[p]);
        if ((g->outmask >> p) & 1) {
            for (int i = 0; i < g->nout; i++)
                if (g->out_order[i] == p) key[p] = i;
        } else {
            score += g->money[p];
            key[p] = (1LL << 50) + ((int64_t)score << 24) + g->money[p];
        }
        row[p] = score;
        row[players + p] = g->money[p];
    }
    for (int p = 0; p < players; p++) {
        int rank = 1;
        for (int q = 0; q < players; q++) rank += key[q] > key[p];
        row[2 * players + p] = rank;
    }
    stats[ST_OUT] = g->nout;
    memcpy(row + 3 * players, stats, sizeof stats);
}

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s PLAYERS GAMES SEED [CARPETS MONEY [OUT_FILE]]\n", argv[0]);
        return 2;
    }
    int players = atoi(argv[1]);
    long games = atol(argv[2]);
    uint64_t seed = strtoull(argv[3], NULL, 10);
    int carpets = argc > 4 ? atoi(argv[4]) : (players == 4 ? 12 : 10); /* R6 */
    int money = argc > 5 ? atoi(argv[5]) : 30;                            /* R5 */
    if (players < 3 || players > 4 || games < 0 || carpets < 1 || money < 0) {
        fprintf(stderr, "expected 3 or 4 players, games >= 0, carpets >= 1, money >= 0\n");
        return 2;
    }
    int width = 3 * players + STATS;
    int32_t *rows = malloc(sizeof(int32_t) * (size_t)width * (size_t)(games ? games : 1));
    if (!rows) return 1;
    build_tables();
    Game g;
    uint64_t rng = mix64(seed ^ SALT_PLAYOUTS);
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < games; i++) play(&g, players, carpets, money, &rng, rows + i * width);
    wall = seconds(CLOCK_MONOTONIC) - wall;
    cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;

    long long sums[STATS] = {0}, seat[4][3] = {{0}};
    for (long i = 0; i < games; i++) {
        const int32_t *row = rows + i * width;
        for (int k = 0; k < STATS; k++) sums[k] += row[3 * players + k];
        for (int p = 0; p < players; p++) {
            seat[p][0] += row[p];
            seat[p][1] += row[players + p];
            seat[p][2] += row[2 * players + p] == 1;
        }
    }
    printf("%ld %.6f %.6f", games, wall, cpu);
    for (int k = 0; k < STATS; k++) printf(" %lld", sums[k]);
    for (int p = 0; p < players; p++) printf(" %lld %lld %lld", seat[p][0], seat[p][1], seat[p][2]);
    printf("\n");
    if (argc > 6) {
        FILE *f = fopen(argv[6], "wb");
        if (!f || fwrite(rows, sizeof(int32_t) * (size_t)width, (size_t)games, f) != (size_t)games) {
            fprintf(stderr, "cannot write %s\n", argv[6]);
            return 1;
        }
        fclose(f);
    }
    free(rows);
    return 0;
}
