// A fork server for the workers of one node binary (see harness/run/fork-server-main.js).
// A node process can be forked only if no thread of it is needed after the
// fork: the zygote runs with V8's --single-threaded, so V8 starts no
// background work, and this file is both preloaded into it (LD_PRELOAD) and
// loaded by it as a Node-API addon.
//
// Preloaded, it keeps the one thing --single-threaded does not: Node's idle
// worker threads wait on a condition variable, and in a forked child, which
// has none of those threads, a signal on it would wait for them for ever
// (V8 still posts a task when the main thread runs a job itself). So waits
// are counted, and in the child each condition variable waited on at the fork
// is made new, with its mutex if a thread held it. Only those still alive:
// node waits at startup on a condition variable and mutex on the main
// thread's stack (its platform's, until its threads have started), whose
// bytes at the fork belong to other frames.
//
// As an addon it starts workers: spawn() forks a monitor, which forks the
// worker and then writes how the worker ended on the worker's answer FIFO,
// as harness/run/blocking-driver.js's shell does for a worker it starts. The process
// that drives the workers loads it too, not preloaded, to make their FIFOs.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <node_api.h>
#include <uv.h>

// --- preloaded: condition variables waited on ---------------------------

// Node waits on a few condition variables only (its platform's task queues,
// libuv's thread pool): a small table, never cleared, is enough. Each keeps
// the mutex it is waited with (NULL once either is destroyed) and how many
// threads wait on it now.
#define kWaited 64
static struct waited {
  pthread_cond_t *_Atomic cond;
  pthread_mutex_t *_Atomic mutex;
  atomic_int waiters;
} waited[kWaited];
static int (*real_wait)(pthread_cond_t *, pthread_mutex_t *);
static int (*real_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
static int (*real_cond_destroy)(pthread_cond_t *);
static int (*real_mutex_destroy)(pthread_mutex_t *);

static struct waited *enter(pthread_cond_t *cond, pthread_mutex_t *mutex) {
  for (int i = 0; i < kWaited; i++) {
    pthread_cond_t *seen = atomic_load(&waited[i].cond);
    if (seen == NULL && atomic_compare_exchange_strong(&waited[i].cond, &seen, cond)) seen = cond;
    if (seen == cond) {
      atomic_store(&waited[i].mutex, mutex);
      atomic_fetch_add(&waited[i].waiters, 1);
      return &waited[i];
    }
  }
  return NULL;
}

static void leave(struct waited *entry) {
  if (entry != NULL) atomic_fetch_sub(&entry->waiters, 1);
}

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex) {
  struct waited *entry = enter(cond, mutex);
  int result = real_wait(cond, mutex);
  leave(entry);
  return result;
}

int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *until) {
  struct waited *entry = enter(cond, mutex);
  int result = real_timedwait(cond, mutex, until);
  leave(entry);
  return result;
}

// A condition variable or mutex destroyed is forgotten: its memory may be
// another object's by the next fork.
int pthread_cond_destroy(pthread_cond_t *cond) {
  for (int i = 0; i < kWaited; i++) {
    if (atomic_load(&waited[i].cond) == cond) atomic_store(&waited[i].mutex, NULL);
  }
  return real_cond_destroy(cond);
}

int pthread_mutex_destroy(pthread_mutex_t *mutex) {
  for (int i = 0; i < kWaited; i++) {
    pthread_mutex_t *expected = mutex;
    atomic_compare_exchange_strong(&waited[i].mutex, &expected, NULL);
  }
  return real_mutex_destroy(mutex);
}

// In a child: a condition variable that threads waited on is made new, and
// its mutex too if one of them held it at the fork (just woken, taking a
// task): in the child no thread is left to release it. One destroyed is not
// touched: a lock of another object's bytes read as a mutex aborted in glibc.
static void renew_waited(void) {
  static const pthread_cond_t fresh_cond = PTHREAD_COND_INITIALIZER;
  static const pthread_mutex_t fresh_mutex = PTHREAD_MUTEX_INITIALIZER;
  for (int i = 0; i < kWaited; i++) {
    pthread_cond_t *cond = atomic_load(&waited[i].cond);
    pthread_mutex_t *mutex = atomic_load(&waited[i].mutex);
    if (cond == NULL || mutex == NULL) continue;
    if (atomic_load(&waited[i].waiters) > 0) memcpy(cond, &fresh_cond, sizeof fresh_cond);
    atomic_store(&waited[i].waiters, 0);
    if (pthread_mutex_trylock(mutex) != 0) memcpy(mutex, &fresh_mutex, sizeof fresh_mutex);
    else pthread_mutex_unlock(mutex);
  }
}

__attribute__((constructor)) static void preload(void) {
  // The versions node links against (glibc keeps an older pthread_cond_* too).
  real_wait = dlvsym(RTLD_NEXT, "pthread_cond_wait", "GLIBC_2.3.2");
  real_timedwait = dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
  real_cond_destroy = dlvsym(RTLD_NEXT, "pthread_cond_destroy", "GLIBC_2.3.2");
  real_mutex_destroy = dlsym(RTLD_NEXT, "pthread_mutex_destroy");
  pthread_atfork(NULL, NULL, renew_waited);
}

// --- the addon ---------------------------------------------------------

// V8 marks its heap MADV_DONTFORK: a child would find its heap unmapped.
static void inherit_all_memory(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return;
  char line[512];
  unsigned long start, end;
  while (fgets(line, sizeof line, maps)) {
    if (sscanf(line, "%lx-%lx", &start, &end) == 2) madvise((void *)start, end - start, MADV_DOFORK);
  }
  fclose(maps);
}

static napi_value number(napi_env env, double value) {
  napi_value result;
  napi_create_double(env, value, &result);
  return result;
}

static int string_arg(napi_env env, napi_value value, char *out, size_t size) {
  size_t length;
  return napi_get_value_string_utf8(env, value, out, size, &length) == napi_ok && length < size - 1;
}

// As a shell's $?: 128 + the signal that ended a process, or its exit code.
static int shell_status(int status) {
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

// Says on the answers FIFO, for a monitor that never opened it, that the
// worker ended before it started (status: as a shell's $?), and removes both
// FIFOs. Their asker gone, the open fails: no one is told.
static void unstarted(const char *requests, const char *answers, int status) {
  int out = open(answers, O_WRONLY | O_NONBLOCK);
  unlink(requests);
  unlink(answers);
  if (out >= 0) {
    dprintf(out, "{\"exit\":%d}\n", status);
    close(out);
  }
}

// spawn(requests, answers): in the zygote, the monitor's pid (or -errno, and
// the answer FIFO says the worker ended);
// in the worker, 0, with its requests on fd 0 and its answers on fd 3.
static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  char requests[4096], answers[4096];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || !string_arg(env, argv[0], requests, sizeof requests) ||
      !string_arg(env, argv[1], answers, sizeof answers)) {
    napi_throw_type_error(env, NULL, "spawn(requests, answers): two paths");
    return NULL;
  }
  // Zombies of monitors whose worker has ended.
  while (waitpid(-1, NULL, WNOHANG) > 0) {}
  inherit_all_memory();
  // The monitor says on `started` that it came out of fork() alive: one that
  // dies in the fork handlers (this file's or another library's) would leave
  // the asker waiting for an exit line that never comes.
  int started[2];
  if (pipe2(started, O_CLOEXEC) != 0) {
    int error = errno;
    unstarted(requests, answers, 127);
    return number(env, -error);
  }
  pid_t monitor = fork();
  if (monitor < 0) {
    int error = errno;
    close(started[0]);
    close(started[1]);
    unstarted(requests, answers, 127);
    return number(env, -error);
  }
  if (monitor > 0) {
    char byte;
    ssize_t n;
    close(started[1]);
    while ((n = read(started[0], &byte, 1)) < 0 && errno == EINTR) {}
    close(started[0]);
    if (n != 1) {
      int status = 0;
      while (waitpid(monitor, &status, 0) < 0 && errno == EINTR) {}
      unstarted(requests, answers, shell_status(status));
    }
    return number(env, monitor);
  }
  close(started[0]);
  while (write(started[1], "", 1) < 0 && errno == EINTR) {}
  close(started[1]);
  // The process that asked for this fork holds both FIFOs open for reading
  // and writing while it lives. Gone (killed after asking), it leaves the
  // answers FIFO without a reader: the open fails, and the monitor ends
  // rather than wait for a partner that never comes. Once open, they block
  // again for the worker, which uses them as pipes.
  int out = open(answers, O_WRONLY | O_NONBLOCK);
  int in = out < 0 ? -1 : open(requests, O_RDONLY | O_NONBLOCK);
  unlink(requests);
  unlink(answers);
  if (in < 0 || out < 0) _exit(127);
  fcntl(in, F_SETFL, fcntl(in, F_GETFL) & ~O_NONBLOCK);
  fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_NONBLOCK);
  pid_t worker = fork();
  if (worker == 0) {
    dup2(in, 0);
    dup2(out, 3);
    if (in != 0) close(in);
    if (out != 3) close(out);
    return number(env, 0);
  }
  close(in);
  int status = 0, code = 127;
  if (worker > 0) {
    while (waitpid(worker, &status, 0) < 0 && errno == EINTR) {}
    code = shell_status(status);
  }
  dprintf(out, "{\"exit\":%d}\n", code);
  _exit(0);
}

// mkfifos(paths): makes a FIFO (mode 0600) at each path of the array; 0, or
// -errno of the first it could not make. A mkfifo process spawned from a fuzz
// target of half a GiB cost it 40 ms and more each time.
static napi_value Mkfifos(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uint32_t count = 0;
  bool is_array = false;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_is_array(env, argv[0], &is_array) != napi_ok || !is_array ||
      napi_get_array_length(env, argv[0], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "mkfifos(paths): an array of paths");
    return NULL;
  }
  char path[4096];
  for (uint32_t i = 0; i < count; i++) {
    napi_value element;
    if (napi_get_element(env, argv[0], i, &element) != napi_ok || !string_arg(env, element, path, sizeof path)) {
      napi_throw_type_error(env, NULL, "mkfifos(paths): an array of paths");
      return NULL;
    }
    if (mkfifo(path, 0600) != 0) return number(env, -errno);
  }
  return number(env, 0);
}

// waitReadable(fd, micros): waits in the kernel until fd has something to
// read or micros have passed; true when it has (or has hung up), false when
// the time ran out or a signal came. A process driving a worker synchronously
// waits so for its answer: polling a non-blocking read took the CPU its
// worker needed, and woke up a timer slack late.
static napi_value WaitReadable(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t fd = -1;
  double micros = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 2 || napi_get_value_int32(env, argv[0], &fd) != napi_ok ||
      napi_get_value_double(env, argv[1], &micros) != napi_ok || fd < 0 || !(micros >= 0)) {
    napi_throw_type_error(env, NULL, "waitReadable(fd, micros): a file descriptor and a time");
    return NULL;
  }
  struct pollfd poller = { .fd = fd, .events = POLLIN };
  long long nanos = (long long)(micros * 1000);
  struct timespec timeout = { .tv_sec = nanos / 1000000000, .tv_nsec = nanos % 1000000000 };
  napi_value result;
  napi_get_boolean(env, ppoll(&poller, 1, &timeout, NULL) > 0, &result);
  return result;
}

// runEventLoopOnce(): runs what this process's event loop has ready, without
// waiting (uv_run, UV_RUN_NOWAIT). A process that never returns to its loop
// (a Jazzer.js --sync target) otherwise keeps every handle it closed: a
// closed MessagePort, about 5 KB, is freed by a callback the loop runs.
// Called between inputs, with no JavaScript of the caller's on the way; the
// loop that called the fuzzing (if one did) is never resumed.
static napi_value RunEventLoopOnce(napi_env env, napi_callback_info info) {
  (void)info;
  struct uv_loop_s *loop = NULL;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || loop == NULL) return number(env, -1);
  return number(env, uv_run(loop, UV_RUN_NOWAIT));
}

// exit(code): ends a forked worker at once. Its process exit would wait for
// threads that stayed behind in the zygote.
static napi_value Exit(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t code = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc > 0) napi_get_value_int32(env, argv[0], &code);
  _exit(code);
}

// Whether this library was preloaded, its pthread_cond_wait the one every
// caller gets: a fork without it could hang its child.
static napi_value Preloaded(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_get_boolean(env, real_wait != NULL && dlsym(RTLD_DEFAULT, "pthread_cond_wait") == (void *)pthread_cond_wait,
    &result);
  return result;
}

// The pid of this process (process.pid is the zygote's in a worker).
static napi_value Pid(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, getpid());
}

static napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor functions[] = {
    { "spawn", NULL, Spawn, NULL, NULL, NULL, napi_default, NULL },
    { "mkfifos", NULL, Mkfifos, NULL, NULL, NULL, napi_default, NULL },
    { "waitReadable", NULL, WaitReadable, NULL, NULL, NULL, napi_default, NULL },
    { "runEventLoopOnce", NULL, RunEventLoopOnce, NULL, NULL, NULL, napi_default, NULL },
    { "exit", NULL, Exit, NULL, NULL, NULL, napi_default, NULL },
    { "pid", NULL, Pid, NULL, NULL, NULL, napi_default, NULL },
    { "preloaded", NULL, Preloaded, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
