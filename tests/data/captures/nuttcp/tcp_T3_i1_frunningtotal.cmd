# TCP, brief output with -frunningtotal (cumulative Tot: part on each interval line)
# captured: 2026-11-24T17:32:53Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: nuttcp-6.1.2 (nuttcp -V)
# output: stdout+stderr combined (> tcp_T3_i1_frunningtotal.out 2>&1), stdout a file, not a TTY
# server (started before, on 127.0.0.1, killed by PID after): nuttcp -S --nofork -P 15700
timeout 30 nuttcp -T 3 -i 1 -frunningtotal -P 15700 -p 15701 127.0.0.1 > tcp_T3_i1_frunningtotal.out 2>&1
