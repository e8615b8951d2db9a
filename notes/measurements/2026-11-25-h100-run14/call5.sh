#!/usr/bin/env bash
# Run 14, call 5: the rest of r14's gpu tests (call 3's run of all of them stopped at its 330 s limit inside the
# unchanged dct4 tests; call 4 ran the compress/block8 ones): every [gpu] case but [compress] and [block8].
C=${1:?carry dir}; O=${2:?out}; mkdir -p "$O"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$(dirname $(find /usr/local /usr/lib /opt -maxdepth 6 -name 'libcufft.so.1*' | head -1))
[[ -e /work/main/data ]] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$O/info.log" 2>&1
mkdir -p /tmp/bin/r14 && gunzip -c $C/r14/tests/test_kernels.gz > /tmp/bin/r14/test_kernels && chmod +x /tmp/bin/r14/test_kernels
start=$(date +%s)
timeout 540 /tmp/bin/r14/test_kernels "[gpu]~[compress]~[block8]" -r compact -d yes > $O/tests.log 2>&1; echo "tests exit $? after $(( $(date +%s) - start )) s" >> $O/tests.log
grep -v "^$" $O/tests.log | grep -v " s: " | tail -4
