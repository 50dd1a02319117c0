"""Read `llvm-nm` listings in the tests' Python helpers (one reader for all).

read_nm(path) -> (addr, size): symbol -> address from `llvm-nm [-n]` lines
(ADDR TYPE NAME) and `llvm-nm -S` lines (ADDR SIZE TYPE NAME); size has only
the symbols an `-S` listing gave a size for. Undefined symbols (no address)
are skipped."""


def read_nm(path):
    addr, size = {}, {}
    for line in open(path):
        p = line.split()
        if len(p) == 4:
            addr[p[3]], size[p[3]] = int(p[0], 16), int(p[1], 16)
        elif len(p) == 3:
            addr[p[2]] = int(p[0], 16)
    return addr, size
