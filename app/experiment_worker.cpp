#include "app/experiment_worker.h"

namespace hs {

ExperimentWorker::ExperimentWorker()
    : jobs_([this](const Request& r, const JobControl& control) -> std::optional<Done> {
          // Writes progress_ only while this job is the newest one (a superseded job may
          // still be finishing a step when the next one starts).
          const auto publish = [&](const auto& change) {
              std::lock_guard<std::mutex> lock(mutex_);
              if (control.generation() == jobs_.latest_generation()) change(progress_);
          };
          int total = 0, done = 0;
          for (const train::TrainingSetup& s : r.setups) total += s.options.adamw.total_steps;
          publish([&](ExperimentProgress& p) {
              p = ExperimentProgress{};
              p.key = r.experiment.key;
              p.values = r.experiment.values;
              p.total_steps = total;
          });
          for (std::size_t k = 0; k < r.setups.size(); ++k) {
              try {
                  std::optional<train::ExperimentRun> summary = train::run_experiment_value(
                      r.setups[k], r.experiment.values[k], [&](const train::TrainingRun&, bool) {
                          if (!control.report(++done, total)) return false;  // cancelled or superseded
                          publish([&](ExperimentProgress& p) { p.done_steps = done; });
                          return true;
                      });
                  if (!summary) return std::nullopt;
                  publish([&](ExperimentProgress& p) { p.runs.push_back(std::move(*summary)); });
              } catch (const std::exception& e) {  // nothing may escape the worker's thread
                  const std::string error = "run " + std::to_string(k + 1) + ": " + e.what();
                  publish([&](ExperimentProgress& p) { p.error = error; });
                  return std::nullopt;
              }
          }
          return std::nullopt;  // everything went out through progress_: no result to take
      }) {}

void ExperimentWorker::start(const train::ExperimentSetup& experiment) {
    Request r{experiment, train::experiment_setups(experiment)};  // throws before anything starts
    jobs_.submit(std::move(r));
}

ExperimentProgress ExperimentWorker::progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    ExperimentProgress p = progress_;
    p.running = !jobs_.idle();
    return p;
}

}  // namespace hs
