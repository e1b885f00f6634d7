# fio randread 4k QD32 x2, 8 s, --status-interval=1 --output-format=json: raw stdout stream of concatenated JSON documents (periodic + final)
# truncated: the first 2 of its 9 documents (lines 1-1050), for the parser robustness tests
# captured: 2026-11-21T22:34:20Z on vm (6.18.44-fc-v657), exit status: 0
# stdout+stderr combined into randread4k_qd32_j2_status1_json_stream.out
# note: 256 MiB file on ext4 (/dev/vda, virtio disk in a VM); O_DIRECT (--direct=1) works on this filesystem; 2 vCPUs
cd /tmp/fio-test && timeout 60 fio --name=randread4k --rw=randread --bs=4k --iodepth=32 --numjobs=2 --filename=/tmp/fio-test/fio.dat --size=256M --direct=1 --ioengine=libaio --time_based --runtime=8 --status-interval=1 --output-format=json
