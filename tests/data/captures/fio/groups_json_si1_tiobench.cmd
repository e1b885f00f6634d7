# fio json output with --status-interval=1, a job file of four stonewall groups of two jobs
# captured: 2026-11-28T02:05:00Z (UTC), local files on ext4 (/var/tmp, /dev/vda), O_DIRECT works there
# exit status: 0
# tool: fio-3.33 (/usr/bin/fio, Debian 12 package)
# notes: fio-examples' tiobench-example.fio (4 stonewall groups) capped: size=4m, numjobs=2, time_based, runtime=1; the job file follows the command
# command (stdout+stderr combined into groups_json_si1_tiobench.out; the directory was made before and removed after):
timeout 30 fio --directory=/var/tmp/pbfio/groups_json_si1_tiobench --output-format=json --status-interval=1 tiobench_capped.fio > tests/data/captures/fio/groups_json_si1_tiobench.out 2>&1
# tiobench_capped.fio:
#   ; tiobench like setup, add more fX files between the stonewalls to
#   ; create more threads
#   
#   [global]
#   direct=1
#   size=4m
#   bsrange=4k-4k
#   timeout=60
#   numjobs=2	; 4 simultaneous threads for each job
#   time_based
#   runtime=1
#   
#   [f1]
#   rw=write
#   
#   [f2]
#   stonewall
#   rw=randwrite
#   
#   [f3]
#   stonewall
#   rw=read
#   
#   [f4]
#   stonewall
#   rw=randread
