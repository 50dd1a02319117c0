/*===- ks_tool.c - keel-sim as one translation unit -----------------------===*
 *
 * The tool is compiled from this file alone, so that the front-end model's
 * hooks (ks_frontend.c) inline into the run-time helpers of ks_main.c that
 * call them: one call per event instead of two (docs/frontend-model.md,
 * "Speed").
 *===----------------------------------------------------------------------===*/

#include "ks_frontend.c"
#include "ks_main.c"
