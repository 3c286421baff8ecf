#!/bin/sh
exec "//progs/counters" "$@"
