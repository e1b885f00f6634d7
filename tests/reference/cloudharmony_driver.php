<?php
// Pairbench's differential-test driver for CloudHarmony's block-storage code (not theirs,
// and none of theirs is copied here): it requires their classes from the unpacked pinned
// archive and runs their own workload loop (wdpc: job order, tracking values, steady-state
// checks, the round it stops at), their column computation (jobMetrics) and their results
// writer (generateJson: the {test}.json metrics, the ss_* fields in .options) on fio
// results a test supplies. Only their fio() is replaced: it answers each job by name from
// the supplied results instead of running fio.
//
// php cloudharmony_driver.php LIB_DIR REQUESTS.json RESULTS.json WORK_DIR
//   REQUESTS.json: a list of requests, each one of
//     {"kind": "suite", "test": "iops"|"latency"|"throughput", "max_rounds": N,
//      "verification": PCT, "rounds": R, "default": {fio JSON},
//      "jobs": {"x1-0_100-4k-rand": {fio JSON}, ...}}: a job of rounds 1..R not in "jobs"
//      gets "default"; a job of a later round fails (as fio failing would).
//      -> {"stages": [{"bs": ..., "status": true|false|null, "complete": X,
//                      "options": {the stage's ss_* ...}}],
//          "metrics": {...}, "options": {the row's ss_* ...}} (metrics and options written
//          by their generateJson, as their run.php does, only when no stage failed)
//     {"kind": "round", "cases": [[value, places], ...]} -> PHP's round() of each
//     {"kind": "text", "values": [...]} -> sprintf("%s") of each
//     {"kind": "threads", "cpus_file": PATH, "cases": [[CPUS, [ARG, ...]], ...]} -> the
//      fio numjobs their run options give for run.sh's ARGs on a host of CPUS CPUs (their
//      getCpuCount runs nproc: the test's nproc on PATH prints what PATH holds)
//   RESULTS.json: one result per request

error_reporting(E_ALL & ~E_DEPRECATED);
ini_set('display_errors', 'stderr');
[$script, $lib, $requestsFile, $resultsFile, $work] = $argv;
require_once "$lib/BlockStorageTest.php";
require_once "$lib/BlockStorageTestIops.php";
require_once "$lib/BlockStorageTestLatency.php";
require_once "$lib/BlockStorageTestThroughput.php";

trait SuppliedFio {
  public $supplied = array();  // the request: "jobs", "default", "rounds"

  // Their fio() runs fio and keeps its JSON result under $step; this keeps the supplied one.
  protected function fio($options, $step, $target=NULL, $concurrent=TRUE, $offsetThreads=FALSE) {
    if ($step != 'wdpc') return TRUE;  // preconditioning: nothing to measure
    $name = $options['name'];
    preg_match('/^x([0-9]+)-/', $name, $m);
    if (isset($this->supplied['jobs'][$name])) $result = $this->supplied['jobs'][$name];
    else if ($m[1] <= $this->supplied['rounds']) $result = $this->supplied['default'];
    else return FALSE;  // a round the test did not supply
    $result['jobs'][0]['jobname'] = $name . '-1';
    if (!isset($this->fio[$step])) $this->fio[$step] = array();
    $this->fio[$step][] = $result;
    return TRUE;
  }

  public function prepare($options, $test, $supplied) {
    $this->options = $options;
    $this->test = $test;
    $this->supplied = $supplied;
  }
}

class SuppliedIops extends BlockStorageTestIops { use SuppliedFio; }
class SuppliedLatency extends BlockStorageTestLatency { use SuppliedFio; }
class SuppliedThroughput extends BlockStorageTestThroughput {
  use SuppliedFio;
  // PHP 8 no longer calls their PHP 4 style constructor: call it for one block size.
  public function forBlockSize($options, $bs) { $this->BlockStorageTestThroughput($options, $bs); }
}

function run_request($request, $dir) {
  $options = array(
    'ss_max_rounds' => $request['max_rounds'],
    'ss_verification' => $request['verification'],
    'wd_test_duration' => 60,
    'threads' => 1,
    'oio_per_thread' => 64,
    'target' => array('/dev/null'),
    'output' => $dir,
    'nopurge' => TRUE,
    'noprecondition' => TRUE,
    'active_range' => 100,
  );
  $test = $request['test'];
  $controllers = array();
  if ($test == 'throughput') {
    foreach (array('1024k', '128k') as $bs) {
      $sub = new SuppliedThroughput();
      $sub->forBlockSize($options, $bs);
      $sub->prepare($options, $test, $request);
      $controllers[$bs] = $sub;
    }
  } else {
    $sub = $test == 'iops' ? new SuppliedIops() : new SuppliedLatency();
    $sub->prepare($options, $test, $request);
    $controllers[NULL] = $sub;
  }
  $stages = array();
  $failed = FALSE;
  foreach ($controllers as $bs => $controller) {
    $status = $controller->wdpc();
    $stages[] = array('bs' => $bs, 'status' => $status, 'complete' => $controller->wdpcComplete);
    if ($failed = $status === NULL) break;  // their controller stops at a failed stage
  }
  $ss = array();
  if (!$failed) foreach ($controllers as $i => $controller) {
    $controller->generateJson($dir);  // each stage rewrites .options: the row keeps the last
    $ss = ss_options($dir);
    $stages[array_search($i, array_keys($controllers))]['options'] = $ss;
  }
  $metrics = is_file("$dir/$test.json") ? json_decode(file_get_contents("$dir/$test.json"), TRUE) : array();
  return array('stages' => $stages, 'metrics' => $metrics, 'options' => $ss);
}

function ss_options($dir) {
  $ss = array();
  foreach (unserialize(file_get_contents("$dir/.options")) as $key => $value) {
    if (strpos($key, 'ss_') === 0) $ss[$key] = $value;
  }
  return $ss;
}

$results = array();
foreach (json_decode(file_get_contents($requestsFile), TRUE) as $i => $request) {
  if ($request['kind'] == 'round') {
    $results[] = array_map(fn($c) => round($c[0], $c[1]), $request['cases']);
  } else if ($request['kind'] == 'threads') {
    $found = array();
    // Their run options also read the host's facts (free, hostname) for a report's header:
    // absent here, with a warning each, and no part of the threads.
    error_reporting(E_ALL & ~E_DEPRECATED & ~E_WARNING);
    foreach ($request['cases'] as [$cpus, $args]) {
      file_put_contents($request['cpus_file'], "$cpus\n");
      $GLOBALS['argv'] = array_merge(array('run.php', '--target=/dev/null'), $args);
      ob_start();
      $found[] = BlockStorageTest::getRunOptions()['threads'];
      ob_end_clean();
    }
    error_reporting(E_ALL & ~E_DEPRECATED);
    $results[] = $found;
  } else if ($request['kind'] == 'text') {
    $results[] = array_map(fn($v) => sprintf('%s', (float)$v), $request['values']);
  } else {
    $dir = "$work/$i";
    mkdir($dir);
    ob_start();
    $results[] = run_request($request, $dir);
    ob_end_clean();
  }
}
$out = json_encode($results, JSON_PRESERVE_ZERO_FRACTION);
if ($out === FALSE) { fwrite(STDERR, json_last_error_msg() . "\n"); exit(1); }
file_put_contents($resultsFile, $out);
