#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# record --emulate models the lock functions' accesses of the lock object
# (tests/progs/locks.c: six threads hammer a mutex, a rwlock, a spinlock, a
# condition variable with its mutex, a semaphore; GCC and Clang TSan
# builds): the lock's line is the top line, its top row is named by the
# lock's member (locks.mutex, not glibc's insides), the verdict is true
# sharing and the advice is a lock's (five or six threads: one that mostly
# waited may have a sliver of the samples). A thread blocked out of the
# lockstep's sight is said. Without the model, the
# lock's line had nothing and the guarded counter's line was the top.
# run-tests: full (twelve TSan programs recorded, GCC and Clang: six CPU seconds)
. "$TOP/tests/cli/lib.inc"
cd "$T" || exit 1
P=$TOP/$B/progs
[ -x "$P/locks-tsan" ] || skip "no -fsanitize=thread build of locks.c"
tsan_runs || skip "a -fsanitize=thread program does not run here"

# check BUILD MODE MEMBER [SHARE]: the most contended line (of a tie, a
# lock's: within 5%) has locks.MEMBER (a regular expression) in its first
# row, true sharing, with a lock's advice; with SHARE, the lock's line has
# at least SHARE of the most contended line's contention (a condition
# variable's waiters read the guarded token after every wake: its line is
# as hot). The guarded counter's line ties with the lock's: a thread
# waiting for the lock goes on, in the model, taking the lines it wrote
# (emu_lock_wait), as on a core of its own.
check() {
	"$C2CSCAN" record -q --emulate -o "$1-$2.data" -- "$P/$1" "$2" 12000 >out 2>err || fail "record $1 $2: $(cat err)"
	grep -q "^locks $2 " out || fail "$1 $2: the program says: $(cat out)"
	"$C2CSCAN" report --json -i "$1-$2.data" >r.json 2>err || fail "report $1 $2: $(cat err)"
	# the lock's line: the most contended, or tied with the guarded counter's
	json_get r.json '[(l["offsets"][0]["data_member"], l["verdict"]) for l in sorted([l for l in j["cachelines"] if l["contention"] >= '"${4:-0.95}"' * max(m["contention"] for m in j["cachelines"])], key=lambda l: not (l["offsets"][0]["data_member"] or "").startswith("locks."))][0]' >top
	grep -Eq "^\('locks\.$3', 'true sharing'\)$" top || fail "$1 $2: the most contended line: $(cat top)"
	json_get r.json '[l["advice"] for l in j["cachelines"] if (l["offsets"][0]["data_member"] or "").startswith("locks.")][0]' >advice
	grep -Eq "^locks\.$3 is a lock or other synchronization object [56] threads use \\(tids [0-9, ]*and [12] more\\): each use moves its line" advice ||
		fail "$1 $2: the lock's advice: $(cat advice)"
}

for b in locks-tsan ${CLANG_BUILD:-locks-clang-tsan}; do
	[ -x "$P/$b" ] || continue
	check $b mutex mutex
	check $b rwlock rwlock
	check $b spin spin
	check $b cond "(cond|cond_mutex)" 0.5
	check $b sem sem
done

# a thread blocked where the lockstep cannot see (read() on a pipe): dropped
# after a millisecond, said by record and by the report's notice
"$C2CSCAN" record --emulate -o pipe.data -- "$P/locks-tsan" pipe >/dev/null 2>pipe.err || fail "record pipe: $(cat pipe.err)"
grep -q "^c2cscan record: --emulate: 1 time(s) a thread blocked where the model cannot see" pipe.err ||
	fail "record pipe says: $(cat pipe.err)"
"$C2CSCAN" report --json -i pipe.data >pipe.json 2>err || fail "report pipe: $(cat err)"
json_get pipe.json 'j["notice"]' | grep -q "1 time a thread blocked where the model could not see" ||
	fail "the notice: $(json_get pipe.json 'j["notice"]')"
# blocked out of sight again and again (20 reads): a thread dropped three
# times is not waited for again, so the others are held back at most
# three times each
"$C2CSCAN" record --emulate -o pipes.data -- "$P/locks-tsan" pipes 200000 >pipes.out 2>pipes.err ||
	fail "record pipes: $(cat pipes.err)"
expect_eq "pipes: the program's output" "$(cat pipes.out)" "locks pipes 800000"
n=$(sed -n 's/^c2cscan record: --emulate: \([0-9]*\) time(s) a thread blocked.*/\1/p' pipes.err)
[ "${n:-0}" -le 18 ] || fail "pipes: $n drops (at most 3 a thread): $(cat pipes.err)"
done_test
