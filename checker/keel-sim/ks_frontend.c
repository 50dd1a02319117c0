/*===- ks_frontend.c - keel-sim's front-end model (--frontend=NAME) -------===*
 *
 * docs/frontend-model.md describes the model, its parameters and their
 * sources.  Every structure is per variant (its addresses are the variant's)
 * except the return stack, whose contents are return addresses compared as
 * the base binary's (a map is one-to-one, so a return is mispredicted in a
 * variant exactly when it is in the base).  Nothing here depends on the
 * cache geometry: each (variant, geometry) result carries its variant's
 * counts.
 *===----------------------------------------------------------------------===*/

#include "ks_frontend.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

/*------------------------------------------------------------*/
/*--- Presets: every parameter of the model                ---*/
/*------------------------------------------------------------*/

typedef struct {
   const HChar *name;
   Int win_bits;             /* fetch / uop-cache window: 2^win_bits bytes */
   Int wc_sets, wc_ways;     /* uop (op) cache, in windows */
   Int btb_sets, btb_ways;   /* branch target buffer */
   Int btb_lo;               /* set = (pc >> btb_lo) & (sets - 1) */
   Int pht_bits;             /* conditional predictor: 2^pht_bits 2-bit base counters */
   Int tage_bits;            /* ... and 3 tagged tables of 2^tage_bits entries */
   Int ind_bits;             /* indirect predictor: 2^ind_bits targets */
   Int ras_depth;            /* return stack entries */
   Int sb_depth;             /* store buffer entries (4K aliasing) */
   Int itlb_sets, itlb_ways; /* first-level TLBs, 4 KB pages */
   Int dtlb_sets, dtlb_ways;
   Bool l2_shared;           /* one second-level TLB for both sides */
   Int l2i_sets, l2i_ways;   /* second level (the shared one when l2_shared) */
   Int l2d_sets, l2d_ways;
} FePreset;

static const FePreset presets[] = {
   /* Intel Skylake client core. */
   {"skylake", 5, 32, 8, 512, 8, 5, 13, 10, 12, 16, 56,
    16, 8, 16, 4, True, 128, 12, 128, 12},
   /* AMD Zen 4 core. */
   {"zen4", 6, 64, 8, 1024, 7, 5, 14, 11, 12, 32, 64,
    1, 64, 1, 72, False, 64, 8, 128, 24},
};

static const FePreset *P;
Bool ks_fe_on;
/* The parameters the hooks read, copied out of P by ks_fe_init. */
static Int fe_wb, fe_btb_lo, fe_tage_bits, fe_ind_bits;
static UWord fe_pht_mask;

Bool ks_fe_option(const HChar *arg)
{
   const HChar *v;
   if (!VG_STR_CLO(arg, "--frontend", v))
      return False;
   if (VG_(strcmp)(v, "none") == 0) {
      P = NULL;
      ks_fe_on = False;
      return True;
   }
   for (UInt i = 0; i < sizeof presets / sizeof presets[0]; i++)
      if (VG_(strcmp)(v, presets[i].name) == 0) {
         P = &presets[i];
         ks_fe_on = True;
         return True;
      }
   VG_(fmsg_bad_option)(arg, "known front-end models: skylake, zen4, none\n");
   return False;
}

void ks_fe_usage(void)
{
   VG_(printf)(
"    --frontend=skylake|zen4|none     front-end model: 11 more events [none]\n");
}

/*------------------------------------------------------------*/
/*--- Set-associative LRU tables                           ---*/
/*------------------------------------------------------------*/

/* Keys are compared in their low 32 bits (a branch address, a window or a
   page number): half the memory of full words, and the model's tables stay
   in the host's caches.  Two hot keys 4 GB apart would alias.  The first
   (most recent) way of every set is in one array, the other ways in
   another: the hooks compare with the first way only (see tab_miss), and
   those compares then touch a few host cache lines. */
typedef struct {
   UInt *first; /* per set: the most recent key + 1 (0 = empty) */
   UInt *rest;  /* per set: the other ways - 1 keys + 1, most recent first */
   UWord sets_mask;
   Int ways;
} Tab;

static void tab_init(Tab *t, Int sets, Int ways)
{
   tl_assert(sets > 0 && (sets & (sets - 1)) == 0 && ways > 0);
   t->sets_mask = (UWord)sets - 1;
   t->ways = ways;
   t->first = VG_(calloc)("ks.fe.tab", (SizeT)sets, sizeof(UInt));
   t->rest = VG_(calloc)("ks.fe.tab", (SizeT)sets * (SizeT)(ways - 1) + 1,
                         sizeof(UInt));
}

/* The rest of a lookup whose key is not the first of its set (*F), in the
   N other ways R: out of line, so a hit on the first way stays a compare in
   the caller. */
__attribute__((noinline)) static Bool tab_miss_rest(UInt *f, UInt *r, Int n,
                                                    UInt k)
{
   Int i;
   for (i = 0; i < n; i++)
      if (r[i] == k)
         break;
   Bool miss = i == n;
   if (miss)
      i = n - 1;
   for (; i > 0; i--)
      r[i] = r[i - 1];
   if (n > 0)
      r[0] = *f;
   *f = k;
   return miss;
}

/* Look KEY up in set SET (taken modulo the set count); True on a miss.  The
   key is then the most recent of its set. */
static inline Bool tab_miss(Tab *t, UWord set, UWord key)
{
   UInt k = (UInt)key + 1;
   set &= t->sets_mask;
   UInt *f = &t->first[set];
   if (__builtin_expect(*f == k, 1))
      return False;
   return tab_miss_rest(f, t->rest + set * (UWord)(t->ways - 1), t->ways - 1,
                        k);
}

/*------------------------------------------------------------*/
/*--- State                                                ---*/
/*------------------------------------------------------------*/

/* E_RUN: the bytes the instruction's hook fetches (0: none, joined);
   E_LAST: the offset of the run's last instruction. */
enum { E_RUN, E_LAST, E_FLAGS, N_EXTRA };

/* The conditional predictor: a small TAGE (Seznec and Michaud, "A case for
   (partially) TAgged GEometric history length branch prediction", JILP
   2006): a base table of 2-bit counters by address, and N_TAGE tagged
   tables indexed and tagged by the address and ever longer path histories
   (tage_hist[i] taken branches).  The longest matching table predicts. */
#ifndef KS_TAGE_LONG
#define N_TAGE 3
static const Int tage_hist[N_TAGE] = {4, 10, 24};
#else
/* A sensitivity variant, built with cmake -DKEEL_SIM_TAGE_LONG=ON (not the
   model; docs/frontend-model.md, "A longer history"): six tagged tables
   over up to 180 taken branches, in the range of the path history Yu et
   al. measured on Intel cores, kept in KS_PHX_WORDS words beside phr. */
#define N_TAGE 6
static const Int tage_hist[N_TAGE] = {4, 10, 24, 48, 96, 180};
#define KS_PHX_WORDS 6
#endif

typedef struct {
   UShort tag;  /* 8 bits; 0 = empty */
   Char ctr;    /* -4..3: taken when >= 0 */
   UChar u;     /* 0..3: useful */
} TageEntry;

/* The indirect predictor, the same way (Seznec, "A 64-Kbytes ITTAGE indirect
   branch predictor", JWAC-2 2011): a base table of last targets by address
   and tagged tables of targets by address and path history. */
#define N_ITTAGE 2
static const Int ittage_hist[N_ITTAGE] = {3, 12};

typedef struct {
   UInt target; /* low 32 bits */
   UShort tag;  /* 0 = empty */
   UChar u;
} IttageEntry;
enum { F_SELF = 1 };

#define SB_SLOTS 512 /* 8-byte slots of a 4 KB page */

typedef struct {
   Addr addr;
   UWord size;
} Store;

typedef struct {
   /* The hot scalars and the counters first, in a few host cache lines;
      the store buffer's per-slot arrays last. */
   /* fetch */
   UWord cur_win;   /* also the window looked up last */
   UWord last_bpc;  /* the branch looked up last in the BTB */
   UWord ipage[2], dpage[2]; /* see tlb_touch */
   ULong phr; /* path history: 2 bits per taken branch */
#ifdef KS_TAGE_LONG
   ULong phx[KS_PHX_WORDS];      /* the longer path history, phx[0] newest */
   ULong tage_phx[KS_PHX_WORDS]; /* the history tage_idx was hashed from */
#endif
   ULong FeWin, FeWinMiss, Taken, BtbMiss, CondMiss, IndMiss, Alias4K,
         ItlbMiss, DtlbMiss, TlbWalk;
   Tab wc, btb, itlb, dtlb, l2i, l2d; /* l2d unused when shared */
   /* prediction */
   UChar *pht;      /* the predictor's base: 2-bit counters by address */
   TageEntry *tage[N_TAGE];
   /* The last conditional branch's hashes, reused while the branch and the
      history are the same (a loop's branch, once its history settles). */
   Addr tage_pc;
   ULong tage_phr;
   UWord tage_idx[N_TAGE];
   UShort tage_tag[N_TAGE];
   /* The last update, for the same branch and history, changed nothing
      (a correct prediction by saturated counters): the same outcome
      again changes nothing either. */
   Bool tage_still, tage_still_taken;
   UInt *ind; /* the indirect predictor's base: last target by address */
   IttageEntry *itt[N_ITTAGE];
   /* data */
   Store *sb;
   Int sb_next;
   UChar slot[SB_SLOTS]; /* stores in the buffer touching each slot */
   ULong slot_pages[SB_SLOTS]; /* sum of page_mix(page) over those stores */
} FeVar;

/* The base variant's state is a static (the hooks address it directly);
   variant v >= 1's is fvs[v]. */
static FeVar fv0;
static FeVar *fvs;
#define FV(v) ((v) ? &fvs[v] : &fv0)
static Int fe_nv;
static Addr (*fe_map)(Int v, Addr a);

/* The instruction stream is the same in every variant. */
static const UWord *last_ii;   /* the last instruction record with a hook */
static Addr next_pc = ~(Addr)0; /* base address after its run */
static Bool redirect;          /* a conditional branch was just taken ... */
static const UWord *br_ii;     /* ... this one */
static Addr self_pc = ~(Addr)0; /* a rep instruction goes round again */

static Addr *ras;
static Int ras_top, ras_n;
static ULong RasMiss;

#define EXTRA(ii, k) ((ii)[1 + fe_nv + (k)])

/* keel-sim is one translation unit (ks_tool.c): the hooks inline into the
   helpers of ks_main.c that call them. */
#define HOT __attribute__((always_inline))

void ks_fe_init(Int n_variants, Addr (*map)(Int v, Addr a))
{
   tl_assert(P);
   fe_nv = n_variants;
   fe_map = map;
   fe_wb = P->win_bits;
   fe_btb_lo = P->btb_lo;
   fe_tage_bits = P->tage_bits;
   fe_ind_bits = P->ind_bits;
   fe_pht_mask = ((UWord)1 << P->pht_bits) - 1;
   fvs = VG_(calloc)("ks.fe.var", (SizeT)n_variants, sizeof(FeVar));
   for (Int v = 0; v < n_variants; v++) {
      FeVar *s = FV(v);
      s->cur_win = s->last_bpc = ~(UWord)0;
      s->ipage[0] = s->ipage[1] = s->dpage[0] = s->dpage[1] = ~(UWord)0;
      tab_init(&s->wc, P->wc_sets, P->wc_ways);
      tab_init(&s->btb, P->btb_sets, P->btb_ways);
      tab_init(&s->itlb, P->itlb_sets, P->itlb_ways);
      tab_init(&s->dtlb, P->dtlb_sets, P->dtlb_ways);
      tab_init(&s->l2i, P->l2i_sets, P->l2i_ways);
      if (!P->l2_shared)
         tab_init(&s->l2d, P->l2d_sets, P->l2d_ways);
      for (Int t = 0; t < N_TAGE; t++)
         s->tage[t] = VG_(calloc)("ks.fe.tage", (SizeT)1 << P->tage_bits,
                                  sizeof(TageEntry));
      s->tage_pc = ~(Addr)0;
      s->pht = VG_(malloc)("ks.fe.pht", (SizeT)1 << P->pht_bits);
      /* Counters start weakly not-taken. */
      VG_(memset)(s->pht, 1, (SizeT)1 << P->pht_bits);
      s->ind = VG_(calloc)("ks.fe.ind", (SizeT)1 << P->ind_bits, sizeof(UInt));
      for (Int t = 0; t < N_ITTAGE; t++)
         s->itt[t] = VG_(calloc)("ks.fe.itt", (SizeT)1 << (P->ind_bits - 1),
                                 sizeof(IttageEntry));
      s->sb = VG_(calloc)("ks.fe.sb", (SizeT)P->sb_depth, sizeof(Store));
   }
   ras = VG_(calloc)("ks.fe.ras", (SizeT)P->ras_depth, sizeof(Addr));
}

Int ks_fe_extra_words(void) { return N_EXTRA; }

void ks_fe_fill(UWord *ii)
{
   EXTRA(ii, E_RUN) = ii[0];
   EXTRA(ii, E_LAST) = 0;
   EXTRA(ii, E_FLAGS) = 0;
}

Bool ks_fe_may_skip(const UWord *prev, const UWord *cur)
{
   if (cur[1] != prev[1] + prev[0])
      return False; /* a jump that VEX followed inside the block */
   Int wb = P->win_bits;
   for (Int v = 0; v < fe_nv; v++) {
      Addr pa = prev[1 + v], ca = cur[1 + v];
      UWord last = (pa + prev[0] - 1) >> wb;
      if (ca - cur[1] != pa - prev[1] || (ca >> wb) != last ||
          ((ca + cur[0] - 1) >> wb) != last)
         return False;
   }
   return True;
}

Bool ks_fe_may_join(const UWord *head, const UWord *prev, const UWord *cur)
{
   if (cur[1] != prev[1] + prev[0])
      return False;
   for (Int v = 0; v < fe_nv; v++) {
      Addr pa = prev[1 + v], ca = cur[1 + v];
      UWord page = (pa + prev[0] - 1) >> 12;
      if (ca - head[1 + v] != cur[1] - head[1] || (ca >> 12) != page ||
          ((ca + cur[0] - 1) >> 12) != page)
         return False;
   }
   return True;
}

void ks_fe_extend(UWord *head, const UWord *cur)
{
   EXTRA(head, E_RUN) = cur[1] + cur[0] - head[1];
   EXTRA(head, E_LAST) = cur[1] - head[1];
}

void ks_fe_mark_joined(UWord *cur) { EXTRA(cur, E_RUN) = 0; }

Bool ks_fe_is_call(Addr a)
{
   const UChar *p = (const UChar *)a;
   Int k = 0;
   /* Operand-size, address-size, bnd/rep, notrack and segment prefixes, REX. */
   while (k < 4 && (p[k] == 0x66 || p[k] == 0x67 || p[k] == 0xf2 ||
                    p[k] == 0xf3 || p[k] == 0x2e || p[k] == 0x3e ||
                    (p[k] & 0xf0) == 0x40))
      k++;
   if (p[k] == 0xe8)
      return True;
   return p[k] == 0xff && (((p[k + 1] >> 3) & 7) == 2 || ((p[k + 1] >> 3) & 7) == 3);
}

void ks_fe_mark_self_loop(UWord *ii) { EXTRA(ii, E_FLAGS) |= F_SELF; }

/*------------------------------------------------------------*/
/*--- Fetch: windows, taken branches, BTB, iTLB            ---*/
/*------------------------------------------------------------*/

/* A lookup of PAGE in T: the key looked up last in a set is the first of
   that set, so a lookup of it again hits and changes nothing.  LAST[0] is
   the page looked up last (the first of its set); LAST[1] (when not ~0) the
   one looked up before it: the first of its own set when the sets differ,
   else the second of LAST[0]'s set (a TLB of one set, as Zen 4's first
   level).  A lookup of the second of a set hits and swaps the two first
   ways: the swap waits for the next lookup of the table (tlb_settle), so
   while the two pages alternate only LAST changes (a page's own order
   stays in LAST, the table's first two ways may be in either order).  True
   when the table must be looked up. */
static inline void tlb_settle(Tab *t, const UWord *last)
{
   if (last[1] != ~(UWord)0 && !((last[1] ^ last[0]) & t->sets_mask)) {
      UWord set = last[0] & t->sets_mask;
      UInt *f = &t->first[set], *r = t->rest + set * (UWord)(t->ways - 1);
      if (*f != (UInt)last[0] + 1) {
         UInt k = *f;
         *f = r[0];
         r[0] = k;
      }
   }
}

static inline Bool tlb_touch(Tab *t, UWord *last, UWord page)
{
   if (page == last[0])
      return False;
   if (page == last[1]) {
      last[1] = last[0];
      last[0] = page;
      return False;
   }
   tlb_settle(t, last);
   /* After the lookup PAGE is the first of its set, and LAST[0] the first
      of another set or the second of this one (unless a set has one way,
      or the two share their low 32 bits: the same key to the table). */
   if (!((page ^ last[0]) & t->sets_mask) &&
       (t->ways < 2 || (UInt)page == (UInt)last[0]))
      last[1] = ~(UWord)0;
   else
      last[1] = last[0];
   last[0] = page;
   return True;
}

static inline HOT void itlb_access(FeVar *s, UWord page)
{
   if (!tlb_touch(&s->itlb, s->ipage, page))
      return;
   if (tab_miss(&s->itlb, page, page)) {
      s->ItlbMiss++;
      if (tab_miss(&s->l2i, page, page))
         s->TlbWalk++;
   }
}

static inline void enter_window(FeVar *s, UWord w)
{
   s->FeWin++;
   if (w == s->cur_win)
      return; /* looked up last: the first of its set, a hit */
   s->cur_win = w;
   if (tab_miss(&s->wc, w, w))
      s->FeWinMiss++;
}

/* One variant's fetch of RUN bytes at A; TRANSFER: reached by a taken
   branch at BPC. */
/* The pages P0 and P1 (>= P0) of a fetch, when they are not the two
   looked up last. */
__attribute__((noinline)) static void itlb_pages(FeVar *s, UWord p0, UWord p1)
{
   itlb_access(s, p0);
   if (p1 != p0)
      itlb_access(s, p1);
}

/* An access within one of the two pages looked up last (tlb_touch's first
   cases): PG (the last two pages, newest first) updated, True. */
static inline __attribute__((always_inline)) Bool
recent_page(UWord *pg, UWord p0, UWord p1)
{
   UWord x0 = pg[0], x1 = pg[1];
   if (__builtin_expect(p1 == p0 && (p0 == x0 || p0 == x1), 1)) {
      pg[0] = p0;
      pg[1] = p0 == x0 ? x1 : x0;
      return True;
   }
   return False;
}

static inline __attribute__((always_inline)) void
fetch_one(FeVar *s, Addr a, UWord run, Bool transfer, Addr bpc)
{
   Int wb = fe_wb;
   if (transfer) {
      s->Taken++;
      if (bpc != s->last_bpc && tab_miss(&s->btb, bpc >> fe_btb_lo, bpc))
         s->BtbMiss++;
      s->last_bpc = bpc;
      /* Yavarzadeh et al. (Half&Half): shift by 2, fold in a footprint of the
         branch's address bits 3..18 and the target's bits 0..5. */
      s->phr = (s->phr << 2) ^ (((bpc >> 3) & 0xffff) ^ (a & 0x3f));
#ifdef KS_TAGE_LONG
      for (Int k = KS_PHX_WORDS - 1; k > 0; k--)
         s->phx[k] = (s->phx[k] << 2) | (s->phx[k - 1] >> 62);
      s->phx[0] = s->phr;
#endif
   }
   UWord w0 = a >> wb, w1 = (a + run - 1) >> wb;
   if (transfer || w0 != s->cur_win)
      enter_window(s, w0);
   for (UWord w = w0 + 1; w <= w1; w++)
      enter_window(s, w);
   s->cur_win = w1;
   UWord p0 = a >> 12, p1 = (a + run - 1) >> 12;
   if (!recent_page(s->ipage, p0, p1))
      itlb_pages(s, p0, p1);
}

/* The variants after the base, out of line (see fe_data_variants). */
__attribute__((noinline)) static void fetch_variants(const UWord *ii, UWord run,
                                                     Bool transfer,
                                                     const UWord *br,
                                                     UWord br_off)
{
   for (Int v = 1; v < fe_nv; v++)
      fetch_one(&fvs[v], ii[1 + v], run, transfer,
                transfer ? br[1 + v] + br_off : 0);
}

HOT VG_REGPARM(1) void ks_fe_fetch(const UWord *ii)
{
   Addr base = ii[1];
   UWord run = EXTRA(ii, E_RUN);
   if (run == 0)
      return; /* joined to the hook before it (ks_fe_mark_joined) */
   const UWord *prev = last_ii;
   Bool self = base == self_pc;
   Bool transfer = prev && !self && (redirect || base != next_pc);
   /* The branch: the conditional one just taken, or the last instruction
      of the previous run (a jump, call, return or indirect branch). */
   const UWord *br = redirect ? br_ii : prev;
   UWord br_off = redirect || !prev ? 0 : EXTRA(prev, E_LAST);
   redirect = False;
   self_pc = ~(Addr)0;
   last_ii = ii;
   next_pc = base + run;
   fetch_one(&fv0, base, run, transfer, transfer ? br[1] + br_off : 0);
   if (fe_nv > 1)
      fetch_variants(ii, run, transfer, br, br_off);
}

/*------------------------------------------------------------*/
/*--- Branch prediction                                    ---*/
/*------------------------------------------------------------*/

/* The history of the last N taken branches: 2 bits each, and the 16-bit
   footprint of the oldest one reaches 14 bits further. */
static inline ULong hist_bits(ULong phr, Int n)
{
   Int b = 2 * n + 14;
   return b >= 64 ? phr : phr & (((ULong)1 << b) - 1);
}

#ifdef KS_TAGE_LONG
/* The last N taken branches of the longer history, folded into 64 bits. */
static inline ULong hist_long(const FeVar *s, Int n)
{
   Int b = 2 * n + 14;
   if (b <= 64)
      return hist_bits(s->phx[0], n);
   ULong h = 0;
   for (Int k = 0; k < KS_PHX_WORDS && b > 0; k++, b -= 64) {
      ULong w = b >= 64 ? s->phx[k] : s->phx[k] & (((ULong)1 << b) - 1);
      h ^= w * (0x9e3779b97f4a7c15ULL + 2 * (ULong)k);
   }
   return h;
}

static inline Bool phx_same(const FeVar *s)
{
   for (Int k = 0; k < KS_PHX_WORDS; k++)
      if (s->phx[k] != s->tage_phx[k])
         return False;
   return True;
}
#define TAGE_HIST(s, n) hist_long(s, n)
#define TAGE_SAME_HIST(s) phx_same(s)
#define TAGE_KEEP_HIST(s) VG_(memcpy)((s)->tage_phx, (s)->phx, sizeof (s)->phx)
#else
#define TAGE_HIST(s, n) hist_bits((s)->phr, n)
#define TAGE_SAME_HIST(s) ((s)->phr == (s)->tage_phr)
#define TAGE_KEEP_HIST(s) ((void)0)
#endif

static inline HOT void tage_predict_update(FeVar *s, Addr pc, Bool taken)
{
   Int bits = fe_tage_bits;
   UWord *idx = s->tage_idx;
   UShort *tag = s->tage_tag;
   if (pc != s->tage_pc || !TAGE_SAME_HIST(s)) {
      s->tage_still = False;
      s->tage_pc = pc;
      s->tage_phr = s->phr;
      TAGE_KEEP_HIST(s);
      for (Int i = 0; i < N_TAGE; i++) {
         /* Multiplicative hashes of (address, history) stand in for the
            hardware's folded xors. */
         ULong h = TAGE_HIST(s, tage_hist[i]) ^
                   ((ULong)(pc >> 1) * 0x9e3779b97f4a7c15ULL);
         ULong x = h * 0xbf58476d1ce4e5b9ULL + (ULong)i;
         idx[i] = (UWord)(x >> (64 - bits));
         tag[i] = (UShort)(((x * 0x94d049bb133111ebULL) >> 56) | 1);
      }
   } else if (s->tage_still && taken == s->tage_still_taken) {
      return;
   }
   Int prov = -1, alt = -1;
   for (Int i = N_TAGE - 1; i >= 0; i--) {
      if (s->tage[i][idx[i]].tag == tag[i]) {
         if (prov < 0)
            prov = i;
         else if (alt < 0)
            alt = i;
      }
   }
   UWord bidx = (pc >> 1) & fe_pht_mask;
   UChar *bc = &s->pht[bidx];
   Bool base_pred = *bc >= 2;
   Bool alt_pred = alt >= 0 ? s->tage[alt][idx[alt]].ctr >= 0 : base_pred;
   Bool pred = prov >= 0 ? s->tage[prov][idx[prov]].ctr >= 0 : base_pred;
   if (pred != taken)
      s->CondMiss++;
   /* Update the provider (or the base). */
   Bool changed = pred != taken;
   if (prov >= 0) {
      TageEntry *e = &s->tage[prov][idx[prov]];
      Char ctr = e->ctr;
      UChar u = e->u;
      if (taken) {
         if (e->ctr < 3) e->ctr++;
      } else {
         if (e->ctr > -4) e->ctr--;
      }
      if (pred != alt_pred) {
         if (pred == taken) {
            if (e->u < 3) e->u++;
         } else if (e->u > 0) {
            e->u--;
         }
      }
      changed |= e->ctr != ctr || e->u != u;
   } else {
      UChar c = *bc;
      if (taken) {
         if (*bc < 3) (*bc)++;
      } else {
         if (*bc > 0) (*bc)--;
      }
      changed |= *bc != c;
   }
   s->tage_still = !changed;
   s->tage_still_taken = taken;
   /* A mispredict allocates an entry in a longer table. */
   if (pred != taken && prov < N_TAGE - 1) {
      Bool done = False;
      for (Int i = prov + 1; i < N_TAGE && !done; i++) {
         TageEntry *e = &s->tage[i][idx[i]];
         if (e->u == 0) {
            e->tag = tag[i];
            e->ctr = taken ? 0 : -1;
            done = True;
         }
      }
      if (!done)
         for (Int i = prov + 1; i < N_TAGE; i++)
            s->tage[i][idx[i]].u--;
   }
}

/* The variants after the base, out of line. */
__attribute__((noinline)) static void cond_variants(const UWord *ii, Bool t)
{
   for (Int v = 1; v < fe_nv; v++)
      tage_predict_update(&fvs[v], ii[1 + v], t);
}

HOT void ks_fe_cond(const UWord *ii, UWord taken)
{
   if (EXTRA(ii, E_FLAGS) & F_SELF) {
      if (taken)
         self_pc = ii[1];
      return;
   }
   Bool t = taken != 0;
   tage_predict_update(&fv0, ii[1], t);
   if (fe_nv > 1)
      cond_variants(ii, t);
   if (taken) {
      redirect = True;
      br_ii = ii;
   }
}

/* Targets are compared as base addresses (a map is one-to-one). */
static inline void ittage_hash(const FeVar *s, ULong pch, Int i, UWord *idx,
                               UShort *tag)
{
   ULong x = (hist_bits(s->phr, ittage_hist[i]) ^ pch) * 0xbf58476d1ce4e5b9ULL +
             7 + (ULong)i;
   *idx = (UWord)(x >> (64 - (fe_ind_bits - 1)));
   *tag = (UShort)(((x * 0x94d049bb133111ebULL) >> 52) | 1);
}

static inline HOT void ittage_predict_update(FeVar *s, Addr pc, UInt dst)
{
   UWord idx[N_ITTAGE];
   UShort tag[N_ITTAGE];
   ULong pch = (ULong)(pc >> 1) * 0x9e3779b97f4a7c15ULL;
   Int prov = -1;
   /* The longest table first: when it provides, the others are not read
      (a mispredict there allocates in no longer table). */
   ittage_hash(s, pch, N_ITTAGE - 1, &idx[N_ITTAGE - 1], &tag[N_ITTAGE - 1]);
   IttageEntry *top = &s->itt[N_ITTAGE - 1][idx[N_ITTAGE - 1]];
   if (__builtin_expect(top->tag == tag[N_ITTAGE - 1], 1)) {
      if (top->target == dst) {
         if (top->u < 3)
            top->u++;
         return;
      }
      s->IndMiss++;
      if (top->u == 0)
         top->target = dst;
      else
         top->u--;
      return;
   }
   for (Int i = N_ITTAGE - 2; i >= 0; i--) {
      ittage_hash(s, pch, i, &idx[i], &tag[i]);
      if (prov < 0 && s->itt[i][idx[i]].tag == tag[i])
         prov = i;
   }
   UInt *base = &s->ind[(pc >> 1) & (((UWord)1 << fe_ind_bits) - 1)];
   UInt pred = prov >= 0 ? s->itt[prov][idx[prov]].target : *base;
   if (pred == dst) {
      if (prov >= 0 && s->itt[prov][idx[prov]].u < 3)
         s->itt[prov][idx[prov]].u++;
      return;
   }
   s->IndMiss++;
   if (prov >= 0) {
      IttageEntry *e = &s->itt[prov][idx[prov]];
      if (e->u == 0)
         e->target = dst;
      else
         e->u--;
   } else {
      *base = dst;
   }
   Bool done = False;
   for (Int i = prov + 1; i < N_ITTAGE && !done; i++) {
      IttageEntry *e = &s->itt[i][idx[i]];
      if (e->u == 0) {
         e->tag = tag[i];
         e->target = dst;
         done = True;
      }
   }
   if (!done)
      for (Int i = prov + 1; i < N_ITTAGE; i++)
         s->itt[i][idx[i]].u--;
}

/* The variants after the base, out of line. */
__attribute__((noinline)) static void ind_variants(const UWord *ii, UInt dst)
{
   for (Int v = 1; v < fe_nv; v++)
      ittage_predict_update(&fvs[v], ii[1 + v], dst);
}

HOT void ks_fe_ind(const UWord *ii, Addr dst)
{
   ittage_predict_update(&fv0, ii[1], (UInt)dst);
   if (fe_nv > 1)
      ind_variants(ii, (UInt)dst);
}

VG_REGPARM(3) void ks_fe_callret(const UWord *ii, Addr target, UWord is_ret)
{
   Int d = P->ras_depth;
   if (!is_ret) {
      ras_top = (ras_top + 1) % d;
      ras[ras_top] = ii[1] + ii[0];
      if (ras_n < d)
         ras_n++;
      return;
   }
   if (ras_n == 0) {
      RasMiss++;
      return;
   }
   if (ras[ras_top] != target)
      RasMiss++;
   ras_top = (ras_top + d - 1) % d;
   ras_n--;
}

/*------------------------------------------------------------*/
/*--- Data: 4K aliasing, dTLB                              ---*/
/*------------------------------------------------------------*/

/* [a, a+n) and [b, b+m) overlap in address bits 11:0. */
static inline Bool low12_overlap(Addr a, UWord n, Addr b, UWord m)
{
   return ((a - b) & 0xfff) < m || ((b - a) & 0xfff) < n;
}

/* A 64-bit mix of a page number: a slot whose stores all lie in the
   load's page (the common case: a reload of a spill) has a sum equal to
   count * page_mix(page), and needs no scan of the buffer. */
static inline ULong page_mix(UWord page)
{
   ULong x = (ULong)page * 0x9e3779b97f4a7c15ULL;
   return x ^ (x >> 29);
}

static inline void sb_slots(Store st, FeVar *s, Int delta)
{
   UWord first = st.addr >> 3, last = (st.addr + st.size - 1) >> 3;
   if (last - first >= SB_SLOTS)
      last = first + SB_SLOTS - 1;
   for (UWord k = first; k <= last; k++) {
      s->slot[k & (SB_SLOTS - 1)] += (UChar)delta;
      s->slot_pages[k & (SB_SLOTS - 1)] += (ULong)(Long)delta * page_mix(k >> 9);
   }
}

static inline __attribute__((always_inline)) void
dtlb_access(FeVar *s, UWord page)
{
   if (!tlb_touch(&s->dtlb, s->dpage, page))
      return;
   if (tab_miss(&s->dtlb, page, page)) {
      s->DtlbMiss++;
      if (tab_miss(P->l2_shared ? &s->l2i : &s->l2d, page, page))
         s->TlbWalk++;
   }
}

/* The pages of [a, a+size), when they are not the last one looked up. */
__attribute__((noinline)) static void dtlb_pages(FeVar *s, Addr a, UWord size)
{
   UWord p0 = a >> 12, p1 = (a + size - 1) >> 12;
   dtlb_access(s, p0);
   if (p1 != p0)
      dtlb_access(s, p1);
}

__attribute__((noinline)) static void sb_push(FeVar *s, Addr a, UWord size)
{
   Store *e = &s->sb[s->sb_next];
   if (e->size)
      sb_slots(*e, s, -1);
   e->addr = a;
   e->size = size;
   sb_slots(*e, s, 1);
   s->sb_next = s->sb_next + 1 == P->sb_depth ? 0 : s->sb_next + 1;
}

/* A load whose slots hold a store of another page: does one alias it? */
__attribute__((noinline)) static void alias_scan(FeVar *s, Addr a, UWord size)
{
   for (Int i = 0; i < P->sb_depth; i++) {
      const Store *e = &s->sb[i];
      if (e->size && low12_overlap(a, size, e->addr, e->size) &&
          !(a < e->addr + e->size && e->addr < a + size)) {
         s->Alias4K++;
         return;
      }
   }
}

/* One variant's access at A (its own address; SIZE already clamped). */
static inline __attribute__((always_inline)) void
fe_data_one(FeVar *s, Addr a, UWord size, Bool store)
{
   UWord p0 = a >> 12, p1 = (a + size - 1) >> 12;
   if (!recent_page(s->dpage, p0, p1))
      dtlb_pages(s, a, size);
   if (store) {
      sb_push(s, a, size);
      return;
   }
   /* A load: a store of another page in the buffer on its 8-byte slots?
      (A slot without stores has a sum of 0.) */
   UWord first = a >> 3, last = (a + size - 1) >> 3;
   ULong other = 0;
   for (UWord k = first; k <= last; k++) {
      UWord i = k & (SB_SLOTS - 1);
      other |= s->slot_pages[i] ^ (s->slot[i] * page_mix(k >> 9));
   }
   if (__builtin_expect(other != 0, 0))
      alias_scan(s, a, size);
}

/* The variants after the base, out of line: the base alone (no map) keeps
   ks_fe_data a small leaf. */
__attribute__((noinline)) static void fe_data_variants(Addr addr, UWord size,
                                                       Bool store)
{
   for (Int v = 1; v < fe_nv; v++)
      fe_data_one(&fvs[v], fe_map(v, addr), size, store);
}

HOT void ks_fe_data(Addr addr, UWord size, Bool store)
{
   if (size == 0)
      size = 1;
   if (size > 64)
      size = 64;
   fe_data_one(&fv0, addr, size, store);
   if (fe_nv > 1)
      fe_data_variants(addr, size, store);
}

/*------------------------------------------------------------*/
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

const HChar *ks_fe_event_names(void)
{
   return " FeWin FeWinMiss Taken BtbMiss CondMiss IndMiss RasMiss Alias4K "
          "ItlbMiss DtlbMiss TlbWalk";
}

void ks_fe_print(VgFile *fp, Int v)
{
   FeVar *s = FV(v);
   VG_(fprintf)(fp, " %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
                s->FeWin, s->FeWinMiss, s->Taken, s->BtbMiss, s->CondMiss,
                s->IndMiss, RasMiss, s->Alias4K, s->ItlbMiss, s->DtlbMiss,
                s->TlbWalk);
}
