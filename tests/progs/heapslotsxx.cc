// SPDX-License-Identifier: GPL-2.0
/*
 * heapslots.c in C++: a new[]'d array of per-thread queue states and, for
 * each thread, a counter from a new of its own. report --patch aligns the
 * types (alignas): C++17's new of an over-aligned type is aligned, so the
 * allocations need no change (tests/cli/patch-arrays.sh).
 * HEAPSLOTS_STEPS: each thread's steps.
 */
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#define NT 4

struct qstate {
	long head;
	long tail;
	int id;
};

struct counter {
	long n;
	long spare;
};

static __attribute__((noipa)) long work(long i)
{
	return i * 2654435761u & 7;
}

int main()
{
	std::string name = "queues";
	const char *s = std::getenv("HEAPSLOTS_STEPS");
	long steps = s ? std::atol(s) : 600000, sum = 0;
	qstate *queues = new qstate[NT]();
	counter *counters[NT];
	std::vector<std::thread> t;

	for (int i = 0; i < NT; i++) {
		queues[i].id = i;
		counters[i] = new counter();
	}
	for (long me = 0; me < NT; me++)
		t.emplace_back([=] {
			for (long i = 0; i < steps; i++) {
				queues[me].head += work(i);
				if (i & 1)
					queues[me].tail++;
				counters[me]->n++;
			}
		});
	for (auto &th : t)
		th.join();
	for (int i = 0; i < NT; i++) {
		sum += queues[i].head + queues[i].tail + counters[i]->n;
		delete counters[i];
	}
	std::printf("%s %ld\n", name.c_str(), sum);
	delete[] queues;
	return 0;
}
