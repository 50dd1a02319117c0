/* Check a screenshot: a PNG of the expected size that shows given colours.
 *
 * usage: png-colors FILE WIDTH HEIGHT RRGGBB...
 * Prints the size, whether over 2% of the pixels are not white, and for each
 * colour whether at least 50 pixels are within a small distance of it
 * (anti-aliasing blurs thin lines); exits 1 if any check fails. Handles the
 * 8-bit RGB/RGBA non-interlaced PNGs Chromium writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned be32(const unsigned char *p) {
  return (unsigned)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c) {
  int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: png-colors FILE WIDTH HEIGHT RRGGBB...\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *data = malloc(size);
  if (fread(data, 1, size, f) != (size_t)size || size < 8 ||
      memcmp(data, "\x89PNG\r\n\x1a\n", 8)) {
    fprintf(stderr, "not a PNG\n");
    return 1;
  }
  unsigned w = 0, h = 0, bpp = 0;
  unsigned char *idat = malloc(size);
  size_t idatLen = 0;
  for (long pos = 8; pos + 8 <= size;) {
    unsigned n = be32(data + pos);
    const unsigned char *body = data + pos + 8;
    if (!memcmp(data + pos + 4, "IHDR", 4)) {
      w = be32(body), h = be32(body + 4);
      if (body[8] != 8 || (body[9] != 2 && body[9] != 6) || body[12]) {
        fprintf(stderr, "unsupported PNG type\n");
        return 1;
      }
      bpp = body[9] == 2 ? 3 : 4;
    } else if (!memcmp(data + pos + 4, "IDAT", 4)) {
      memcpy(idat + idatLen, body, n);
      idatLen += n;
    }
    pos += 12 + n;
  }
  size_t stride = (size_t)w * bpp, rawLen = (stride + 1) * h;
  unsigned char *raw = malloc(rawLen), *prev = calloc(stride, 1);
  uLongf got = rawLen;
  if (!bpp || uncompress(raw, &got, idat, idatLen) != Z_OK || got != rawLen) {
    fprintf(stderr, "bad image data\n");
    return 1;
  }
  int ncol = argc - 4;
  unsigned col[64][3];
  long hits[64] = {0}, nonwhite = 0;
  for (int k = 0; k < ncol && k < 64; ++k) {
    unsigned v = (unsigned)strtoul(argv[4 + k], NULL, 16);
    col[k][0] = v >> 16, col[k][1] = (v >> 8) & 255, col[k][2] = v & 255;
  }
  for (unsigned y = 0; y < h; ++y) {
    unsigned char *line = raw + y * (stride + 1) + 1, ft = line[-1];
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= bpp ? line[i - bpp] : 0, b = prev[i],
          c = i >= bpp ? prev[i - bpp] : 0;
      int pred = ft == 1 ? a : ft == 2 ? b : ft == 3 ? (a + b) / 2
                 : ft == 4 ? paeth(a, b, c) : 0;
      line[i] = (unsigned char)(line[i] + pred);
    }
    for (size_t x = 0; x < stride; x += bpp) {
      if (line[x] != 255 || line[x + 1] != 255 || line[x + 2] != 255)
        ++nonwhite;
      for (int k = 0; k < ncol; ++k)
        if (abs(line[x] - (int)col[k][0]) + abs(line[x + 1] - (int)col[k][1]) +
                abs(line[x + 2] - (int)col[k][2]) <= 24)
          ++hits[k];
    }
    prev = line;
  }
  printf("size %ux%u\n", w, h);
  int ok = w == (unsigned)atoi(argv[2]) && h == (unsigned)atoi(argv[3]);
  int enough = nonwhite * 50 > (long)w * h;
  printf("non-white %s\n", enough ? "over 2%" : "under 2%");
  ok = ok && enough;
  for (int k = 0; k < ncol; ++k) {
    printf("colour %s %s\n", argv[4 + k], hits[k] >= 50 ? "present" : "missing");
    ok = ok && hits[k] >= 50;
  }
  return ok ? 0 : 1;
}
