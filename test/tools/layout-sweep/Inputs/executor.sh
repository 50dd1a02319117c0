#!/bin/sh
# A stand-in for srun/ssh: records the command it was given, then runs it.
dir=$1
shift
echo "$@" > "$dir/executor.log"
exec "$@"
