# flood ping (-f, as root) of 127.0.0.1: dots, no reply lines; ipg/ewma on the rtt line
# captured: 2026-11-24T17:36:13Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c50_f.out 2>&1), stdout a file, not a TTY
timeout 20 ping -f -c 50 127.0.0.1 > c50_f.out 2>&1
