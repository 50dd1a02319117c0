/*===- ks_frontend.h - keel-sim's front-end model (--frontend=NAME) -------===*
 *
 * A model of what a current x86 core's front end and load/store unit do
 * with a layout, beside cachegrind's caches (docs/frontend-model.md): fetch
 * windows and a decoded-uop (op) cache, taken branches, a BTB, a conditional
 * predictor on path history, an indirect predictor, a return stack, 4K
 * aliasing of loads after stores, and instruction/data TLBs with a second
 * level.  Off by default; when off nothing here runs and keel-sim's output
 * is unchanged.
 *
 * ks_main.c calls it on each event: an instruction fetch, a conditional
 * branch, an indirect branch, a call or return at a block end, a data
 * access, and the output.  The model keeps all its state here.  The tool is
 * one translation unit (ks_tool.c), so the run-time hooks inline into
 * ks_main.c's helpers.
 *===----------------------------------------------------------------------===*/
#ifndef KS_FRONTEND_H
#define KS_FRONTEND_H

#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"

/* True once --frontend=NAME named a preset. */
extern Bool ks_fe_on;

/* --frontend=skylake|zen4 (and =none); False when ARG is not this option. */
Bool ks_fe_option(const HChar *arg);
void ks_fe_usage(void);

/* After the variants are known.  MAP maps a data address into variant V
   (V >= 1) without side effects. */
void ks_fe_init(Int n_variants, Addr (*map)(Int v, Addr a));


/* Words the model adds to each instruction record (after the addresses of
   the variants), and their values at translation.  ii[0] is the length,
   ii[1 + v] the address in variant v, as in ks_main.c. */
Int ks_fe_extra_words(void);
void ks_fe_fill(UWord *ii);
/* May CUR (right after PREV in its superblock) go without a fetch hook?
   Only when it follows PREV and lies in PREV's last fetch window, in every
   variant; HEAD (the last instruction with a hook) then covers CUR's bytes
   too. */
Bool ks_fe_may_skip(const UWord *prev, const UWord *cur);
/* May CUR (right after PREV, in a new fetch window) join the run of HEAD,
   whose hook waits in the queue with no flush since?  Only when CUR follows
   PREV, at the same distance from HEAD in every variant, inside PREV's last
   page: HEAD's hook then enters CUR's windows too (only fetches read them,
   and none comes between), and CUR's own would look up no page. */
Bool ks_fe_may_join(const UWord *head, const UWord *prev, const UWord *cur);
void ks_fe_extend(UWord *head, const UWord *cur);
/* CUR joined its run's hook but has a hook of its own (an I1 fetch):
   there the model does nothing. */
void ks_fe_mark_joined(UWord *cur);
/* The instruction's side exit goes to the instruction itself (a rep-prefixed
   string instruction's next iteration): not a branch to the front end. */
void ks_fe_mark_self_loop(UWord *ii);

/* The instruction at A (mapped, readable) is a call: VEX follows direct
   calls inside a block, so they are found at translation by their bytes. */
Bool ks_fe_is_call(Addr a);

/* Run time. */
VG_REGPARM(1) void ks_fe_fetch(const UWord *ii);
void ks_fe_cond(const UWord *ii, UWord taken);
void ks_fe_ind(const UWord *ii, Addr dst);
VG_REGPARM(3) void ks_fe_callret(const UWord *ii, Addr target, UWord is_ret);
void ks_fe_data(Addr addr, UWord size, Bool store);

/* Output: the event names, and one variant's counts (each preceded by a
   space), in that order. */
const HChar *ks_fe_event_names(void);
void ks_fe_print(VgFile *fp, Int v);

#endif
