#include "system/framework_check.hpp"

#include <algorithm>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "fsio/process.hpp"
#include "util/strings.hpp"

namespace envcheck::system
{
    namespace
    {
        // Python 3.8+; one framework per run, so that one that hangs or crashes leaves the
        // others' answers intact. The operation: the sum of 2*arange(1024) on GPU 0, whose
        // exact value (1047552) is known.
        constexpr std::string_view script = R"PY(
import importlib.util, json, sys
framework = sys.argv[1]
out = {"framework": framework, "installed": False}
def emit():
    sys.stdout.write("ENVCHECK_FRAMEWORK_RESULT " + json.dumps(out) + "\n")
    sys.stdout.flush()
def expected():
    return float(2 * (1023 * 1024 // 2))
try:
    module = {"torch": "torch", "jax": "jax", "tensorflow": "tensorflow"}[framework]
    if importlib.util.find_spec(module) is None:
        emit()
        sys.exit(0)
    out["installed"] = True
    if framework == "torch":
        import torch
        out["version"] = torch.__version__
        out["cuda_build"] = torch.version.cuda
        out["gpu_build"] = torch.version.cuda is not None
        out["cuda_available"] = bool(torch.cuda.is_available())
        out["device_count"] = int(torch.cuda.device_count()) if out["cuda_available"] else 0
        if out["cuda_available"]:
            out["arch_list"] = list(torch.cuda.get_arch_list())
            out["devices"] = [{"name": torch.cuda.get_device_name(i),
                               "capability": "%d.%d" % torch.cuda.get_device_capability(i)}
                              for i in range(out["device_count"])]
            values = torch.arange(1024, dtype=torch.float32, device="cuda:0")
            value = float((values * 2).sum().item())
            out["operation_ok"] = value == expected()
            out["operation"] = "sum(2*arange(1024)) on cuda:0 = %.0f" % value
    elif framework == "jax":
        import jax
        out["version"] = jax.__version__
        try:
            import importlib.metadata as metadata
            plugins = [d.metadata["Name"] for d in metadata.distributions()
                       if (d.metadata["Name"] or "").lower().startswith(("jax-cuda", "jax_cuda"))]
        except Exception:
            plugins = []
        plugins = sorted(set(p.lower().replace("_", "-") for p in plugins))
        for name in plugins:
            for major in ("13", "12", "11"):
                if "cuda" + major in name:
                    out["cuda_build"] = major
        try:
            gpus = jax.devices("gpu")
        except Exception as error:
            gpus = []
            out["error"] = "%s: %s" % (type(error).__name__, error)
        out["gpu_build"] = bool(gpus) or bool(plugins)
        out["cuda_available"] = bool(gpus)
        out["device_count"] = len(gpus)
        out["devices"] = [{"name": getattr(d, "device_kind", str(d)),
                           "capability": str(getattr(d, "compute_capability", ""))} for d in gpus]
        if gpus:
            import jax.numpy as jnp
            value = float((jax.device_put(jnp.arange(1024, dtype=jnp.float32), gpus[0]) * 2).sum())
            out["operation_ok"] = value == expected()
            out["operation"] = "sum(2*arange(1024)) on %s = %.0f" % (gpus[0], value)
            out.pop("error", None)
    else:
        import tensorflow as tf
        out["version"] = tf.__version__
        info = dict(tf.sysconfig.get_build_info())
        out["cuda_build"] = info.get("cuda_version")
        out["gpu_build"] = bool(info.get("is_cuda_build", False))
        gpus = tf.config.list_physical_devices("GPU")
        out["cuda_available"] = bool(gpus)
        out["device_count"] = len(gpus)
        if gpus:
            out["devices"] = []
            for gpu in gpus:
                details = tf.config.experimental.get_device_details(gpu)
                capability = details.get("compute_capability")
                out["devices"].append({"name": details.get("device_name", gpu.name),
                                       "capability": "%d.%d" % capability if capability else ""})
            with tf.device("/GPU:0"):
                value = float(tf.reduce_sum(tf.range(1024, dtype=tf.float32) * 2).numpy())
            out["operation_ok"] = value == expected()
            out["operation"] = "sum(2*arange(1024)) on /GPU:0 = %.0f" % value
except Exception as error:
    out["error"] = "%s: %s" % (type(error).__name__, error)
emit()
)PY";

        // The last lines of a stream: where a python traceback says what went wrong.
        auto tail(std::string_view text, std::size_t lines) -> std::string
        {
            auto all = util::split_lines(util::trim_right(text));
            const auto first = all.size() > lines ? all.size() - lines : 0;
            std::vector<std::string> kept;
            for (auto i = first; i < all.size(); ++i)
            {
                kept.emplace_back(all[i]);
            }
            return util::join(kept, "\n");
        }
    }

    auto framework_script() -> std::string_view
    {
        return script;
    }

    auto find_python(const std::string& prefix) -> std::string
    {
        for (const char* name : { "/bin/python", "/bin/python3" })
        {
            std::string candidate = prefix + name;
            if (::access(candidate.c_str(), X_OK) == 0)
            {
                return candidate;
            }
        }
        return {};
    }

    auto parse_framework_output(std::string_view output) -> util::Result<model::FrameworkFacts>
    {
        const auto at = output.rfind(framework_marker);
        if (at == std::string_view::npos)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::parse, "no result line in the output"));
        }
        auto line = output.substr(at + framework_marker.size());
        line = line.substr(0, line.find('\n'));
        const auto in = nlohmann::json::parse(line, nullptr, false);
        if (!in.is_object())
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::parse, "the result line is not a JSON object"));
        }
        model::FrameworkFacts facts;
        const auto text = [&](const char* key) -> std::optional<std::string>
        {
            const auto found = in.find(key);
            return found != in.end() && found->is_string()
                     ? std::optional(found->get<std::string>())
                     : std::nullopt;
        };
        const auto flag = [&](const char* key) -> std::optional<bool>
        {
            const auto found = in.find(key);
            return found != in.end() && found->is_boolean() ? std::optional(found->get<bool>())
                                                            : std::nullopt;
        };
        facts.framework = text("framework").value_or("");
        facts.installed = flag("installed").value_or(false);
        facts.version = text("version");
        facts.cuda_build = text("cuda_build");
        facts.gpu_build = flag("gpu_build");
        facts.cuda_available = flag("cuda_available");
        if (const auto count = in.find("device_count");
            count != in.end() && count->is_number_integer())
        {
            facts.device_count = count->get<int>();
        }
        if (const auto archs = in.find("arch_list"); archs != in.end() && archs->is_array())
        {
            for (const auto& arch : *archs)
            {
                if (arch.is_string())
                {
                    facts.arch_list.push_back(arch.get<std::string>());
                }
            }
        }
        if (const auto devices = in.find("devices"); devices != in.end() && devices->is_array())
        {
            for (const auto& device : *devices)
            {
                if (device.is_object())
                {
                    facts.devices.push_back(
                      { device.value("name", ""), device.value("capability", "") });
                }
            }
        }
        facts.operation_ok = flag("operation_ok");
        facts.operation = text("operation").value_or("");
        facts.error = text("error").value_or("");
        return facts;
    }

    auto path_python_version(const Environment& environment, std::chrono::milliseconds timeout)
      -> std::optional<std::string>
    {
        const auto path = environment.find("PATH");
        const std::string python =
          fsio::find_program("python3", path == environment.end() ? std::string() : path->second);
        if (python.empty())
        {
            return std::nullopt;
        }
        fsio::ProcessOptions options;
        options.timeout = timeout;
        options.environment = environment;
        options.max_output_bytes = 4096;
        const auto run = fsio::run_process(
          { python, "-I", "-c", "import platform; print(platform.python_version())" }, options);
        if (!run || !run->succeeded())
        {
            return std::nullopt;
        }
        const auto version = std::string(util::trim(run->out));
        const bool plain = !version.empty() && util::is_digit(version.front()) &&
                           std::all_of(version.begin(), version.end(),
                                       [](char c) { return util::is_digit(c) || c == '.'; });
        return plain ? std::optional(version) : std::nullopt;
    }

    auto run_framework_check(const std::string& python, std::string_view framework,
                             const Environment& environment, std::chrono::milliseconds timeout)
      -> model::FrameworkFacts
    {
        model::FrameworkFacts facts;
        facts.framework = std::string(framework);
        facts.python = python;
        fsio::ProcessOptions options;
        options.timeout = timeout;
        auto child_environment = environment;
        // One small operation needs no preallocated pool of 75 % of the GPU (jax), and no
        // framework chatter on stderr.
        child_environment["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false";
        child_environment["TF_CPP_MIN_LOG_LEVEL"] = "2";
        child_environment["PYTHONDONTWRITEBYTECODE"] = "1";
        options.environment = child_environment;
        const auto run =
          fsio::run_process({ python, "-c", std::string(script), std::string(framework) }, options);
        if (!run)
        {
            facts.error = run.error().message;
            return facts;
        }
        facts.seconds = run->seconds;
        if (run->timed_out)
        {
            facts.timed_out = true;
            facts.installed = true;
            facts.error = "the " + facts.framework + " check timed out after " +
                          std::to_string(timeout.count() / 1000) + " s";
            return facts;
        }
        auto parsed = parse_framework_output(run->out);
        if (!parsed)
        {
            facts.installed = true;
            facts.error = python + " " + run->describe() + ": " + tail(run->err, 3);
            return facts;
        }
        auto result = std::move(parsed).value();
        result.framework = facts.framework;
        result.python = python;
        result.seconds = run->seconds;
        return result;
    }
}
