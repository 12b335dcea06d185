/* SPDX-License-Identifier: MIT */
/*
 * replay.c - a main() for the libFuzzer target, so that `make check` runs every corpus file
 * through the loader with the ordinary compiler (and under ASan in `make asan check`).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	size_t count = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *de;

		if (!d) {
			if (replay_file(argv[i])) {
				fprintf(stderr, "fuzz-replay: cannot read %s\n", argv[i]);
				return 1;
			}
			count++;
			continue;
		}
		while ((de = readdir(d))) {
			char p[4096];

			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], de->d_name);
			if (replay_file(p)) {
				fprintf(stderr, "fuzz-replay: cannot read %s\n", p);
				closedir(d);
				return 1;
			}
			count++;
		}
		closedir(d);
	}
	if (count == 0) {
		fprintf(stderr, "fuzz-replay: empty corpus\n");
		return 1;
	}
	printf("fuzz-replay: %zu passed, 0 failed\n", count);
	return 0;
}
