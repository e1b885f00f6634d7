# ping -q through a lossy, slow link
# captured: 2026-11-24T17:37:24Z (UTC) on the dev machine, loopback only
# exit status: 0
# tool version: ping from iputils 20221126 (ping -V; libcap: yes, IDN: yes, NLS: no)
# output: stdout+stderr combined (> c15_i02_q_lossy.out 2>&1), stdout a file, not a TTY
# setup (a private pair of namespaces, deleted after; no traffic leaves them):
#   ip netns add pbh1; ip netns add pbh2
#   ip link add pbhv1 netns pbh1 type veth peer name pbhv2 netns pbh2
#   ip -n pbh1 addr add 10.253.77.1/30 dev pbhv1; ip -n pbh2 addr add 10.253.77.2/30 dev pbhv2
#   ip -n pbh1 link set lo up; ip -n pbh2 link set lo up; ip -n pbh1 link set pbhv1 up; ip -n pbh2 link set pbhv2 up
#   (this kernel has no netem; a tiny tbf delays and drops the replies instead:)
#   ip netns exec pbh2 tc qdisc replace dev pbhv2 root tbf rate 2kbit burst 200 limit 200   (re-made before each capture)
ip netns exec pbh1 timeout 20 ping -q -c 15 -i 0.2 10.253.77.2 > c15_i02_q_lossy.out 2>&1
