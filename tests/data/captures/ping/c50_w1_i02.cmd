# ping 127.0.0.1 with count and deadline (-c 50 -w 1): the deadline ends it
# captured: 2026-11-24T17:36:09Z (UTC) on the dev machine, loopback only
# exit status: 1
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c50_w1_i02.out 2>&1), stdout a file, not a TTY
timeout 20 ping -c 50 -w 1 -i 0.2 127.0.0.1 > c50_w1_i02.out 2>&1
