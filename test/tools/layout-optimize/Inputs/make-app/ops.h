long op_mix(long s, int x);
long op_step(long s, int x);
long op_fold(long s, int x);
long op_rare(long s);
long op_never(long s);
extern const int op_table[16];
