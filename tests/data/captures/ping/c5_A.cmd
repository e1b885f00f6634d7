# adaptive ping (-A) of 127.0.0.1: ipg/ewma on the rtt line
# captured: 2026-11-24T17:36:13Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c5_A.out 2>&1), stdout a file, not a TTY
timeout 20 ping -A -c 5 127.0.0.1 > c5_A.out 2>&1
