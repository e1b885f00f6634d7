# fio terse version 3 with --status-interval=1, randread, numjobs=2
# captured: 2026-11-24T18:02:07Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# notes: the job lines every second, then the final ones
# command (stdout+stderr combined into terse_v3_si1_randread_j2.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/terse_v3_si1_randread_j2 --size=64m --runtime=3 --time_based --direct=1 --ioengine=libaio --bs=4k --iodepth=16 --name=randread --rw=randread --numjobs=2 --output-format=terse --terse-version=3 --status-interval=1 > tests/data/captures/fio/terse_v3_si1_randread_j2.out 2>&1
