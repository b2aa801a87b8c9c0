#include "gnuplot_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "gnuplot_strings.hpp"
#include "logz/core/error.hpp"

namespace logz::plots {

namespace fs = std::filesystem;

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = dirs.substr(begin, colon - begin);
    const std::string candidate = (fs::path(dir.empty() ? "." : dir) / "gnuplot").string();
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    begin = colon + 1;
  }
  throw InputError(
      "plots: expected the plotting program gnuplot on PATH (install it: apt-get install "
      "gnuplot-nox)");
}

void run_gnuplot(const std::string& dir, const std::string& script, const std::string& shown_as) {
  const std::string gnuplot = find_gnuplot();
  // "./" so that a script named like an option (-e ...) is still read as a file.
  const std::string argument = "./" + script;
  int pipe_fd[2];
  if (pipe(pipe_fd) != 0) throw std::runtime_error("plots: could not create a pipe for gnuplot");
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    throw std::runtime_error("plots: could not start gnuplot (fork failed)");
  }
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec: the parent may have threads.
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(pipe_fd[1], 1);
    dup2(pipe_fd[1], 2);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    if (chdir(dir.c_str()) != 0) _exit(126);
    execl(gnuplot.c_str(), "gnuplot", argument.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fd[1]);
  std::string messages;
  char buf[4096];
  ssize_t got;
  while ((got = read(pipe_fd[0], buf, sizeof buf)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    messages.append(buf, static_cast<std::size_t>(got));
  }
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string last;
  std::istringstream lines(messages);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t^") != std::string::npos) last = line;
  throw std::runtime_error(
      fmt::format("gnuplot failed on {} (exit {}): {}",
                  one_line(shown_as.empty() ? (fs::path(dir) / script).string() : shown_as),
                  WIFEXITED(status) ? WEXITSTATUS(status) : -1, one_line(last)));
}

}  // namespace logz::plots
