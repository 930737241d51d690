// envcheck lock: the lock of an installed environment (schemas/lock.schema.json): every
// package, the platform, python and glibc, the driver and GPUs, the GPU performance baselines
// (unless no_gpu) and the environment file it came from.
//
// The default lock sits beside the environment file: environment.yml -> environment.lock.json
// (./environment.lock.json without one). Refusals: an environment that does not satisfy its own
// environment file is not locked (findings); one with a conda-meta record that cannot be read is
// not locked either (a lock that silently left a package out would pass checks it should fail);
// an existing lock that differs is replaced only with `force`, and one whose packages and
// machine are unchanged is up to date and left alone (the baselines are measured again only with
// `force`). The write is atomic.
#ifndef ENVCHECK_APP_LOCK_HPP
#define ENVCHECK_APP_LOCK_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "model/environment.hpp"
#include "model/lock.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct LockRequest
    {
        PrefixSelection selection;
        std::string env;    // the environment file; empty: ./environment.yml when present
        std::string output; // empty: beside the environment file
        bool force = false; // replace an existing lock that differs
        bool no_gpu = false;
        // Measure GPUs that other processes compute on too; else they get no baseline, and
        // performance_not_recorded says why (passive when busy).
        bool even_if_busy = false;
    };

    enum class LockStatus
    {
        written,
        up_to_date,         // an existing lock with the same packages and machine: left alone
        unreadable_records, // refused: `unreadable`
        unsatisfied,        // refused: `unsatisfied` says what the environment file asks for
        differs,            // refused without force: `packages_differ`
        not_a_lock,         // refused without force: the file there is no envcheck lock
    };

    struct LockOutcome
    {
        LockStatus status = LockStatus::written;
        std::string path;                     // of the lock
        model::Lock lock;                     // what was (or would have been) written
        std::string performance_not_recorded; // why GPUs were asked for but (some) not measured
        UnreadableRecords unreadable;         // unreadable_records
        model::EnvironmentCheck unsatisfied;  // unsatisfied
        std::size_t packages_differ = 0;      // differs
        util::Error not_a_lock;               // not_a_lock: why the file does not read

        [[nodiscard]] auto verdict() const -> Verdict;
    };

    [[nodiscard]] auto run_lock(const LockRequest& request, Ports& ports)
      -> util::Result<LockOutcome>;
}

#endif
