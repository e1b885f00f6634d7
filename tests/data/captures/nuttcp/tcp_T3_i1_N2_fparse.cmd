# TCP, two streams (-N 2), -fparse
# captured: 2026-11-24T17:33:27Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: nuttcp-6.1.2 (nuttcp -V)
# output: stdout+stderr combined (> tcp_T3_i1_N2_fparse.out 2>&1), stdout a file, not a TTY
# server (started before, on 127.0.0.1, killed by PID after): nuttcp -S --nofork -P 15700
timeout 30 nuttcp -T 3 -i 1 -N 2 -fparse -P 15700 -p 15701 127.0.0.1 > tcp_T3_i1_N2_fparse.out 2>&1
