"""The task-migration study in `scopedsm report` (docs/STUDIES.md §3): for
runs of the taskmig-* configurations, the dissertation's efficiency
E = T_Ideal / T per scheme (bench.taskmig_efficiency) as a table, and
taskmig.png: each scheme's median time beside T_Ideal."""

from . import bench, figures, results

SCHEMES = [("taskmig-static", "static (Meta)"), ("taskmig-compute", "CompMig"), ("taskmig-data", "TaskMig")]
TASKMIG_CONFIGS = {"taskmig-dedicated"} | {c for c, _ in SCHEMES}


def rows(summary, cpus=None):
    """bench.taskmig_efficiency over the merged summary, with the --load of
    the loaded runs and the CPU count of the machine they ran on."""
    # The study pairs its configurations across merged files.
    summary = [dict(e, config=results.base_config(e)) for e in summary if isinstance(e, dict)]
    summary = [e for e in summary if e["config"] in TASKMIG_CONFIGS]
    loads = next((e.get("load") for e in summary
                  if e.get("config") in TASKMIG_CONFIGS - {"taskmig-dedicated"} and e.get("load")), None)
    return bench.taskmig_efficiency(summary, loads, cpus)


def markdown(effs):
    if not effs:
        return []
    names = dict(SCHEMES)
    out = ["## Task migration: efficiency (the dissertation's §6.7)", "",
           "T_Ideal = T_dedicated / Power' (T_dedicated: static allocation, pinned, no load; Power': the power the "
           "loads leave, from the loads and the pinning); E = T_Ideal / T; medians of the DSM runs.", "",
           "| app | np | scheme | T (s) | T_dedicated (s) | Power' | T_Ideal (s) | E | faster than static |",
           "|---|---|---|---|---|---|---|---|---|"]
    for e in effs:
        gain = e.get("gain_over_static")
        out.append(f"| {e['app']} | {e['procs']} | {names.get(e['config'], e['config'])} | {e['t_s']:.3g} | "
                   f"{e['t_dedicated_s']:.3g} | {e['power_left']:.3f} | {e['t_ideal_s']:.3g} | "
                   f"{e['efficiency']:.3f} | {'–' if gain is None else f'{100 * gain:.1f} %'} |")
    return out + [""]


def plot(plt, effs, path):
    """Bars of each scheme's time per (app, procs), a line at T_Ideal."""
    if not effs:
        return False
    groups = sorted({(e["app"], e["procs"]) for e in effs})
    names = dict(SCHEMES)
    fig, ax = plt.subplots(figsize=(max(5, 2.5 * len(groups) + 2), 4))
    width = 0.8 / len(SCHEMES)
    for j, (config, label) in enumerate(SCHEMES):
        vals = [next((e["t_s"] for e in effs if (e["app"], e["procs"]) == g and e["config"] == config), 0)
                for g in groups]
        ax.bar([i + (j - 1) * width for i in range(len(groups))], vals, width, label=names[config])
    for i, g in enumerate(groups):
        ideal = next(e["t_ideal_s"] for e in effs if (e["app"], e["procs"]) == g)
        ax.hlines(ideal, i - 0.45, i + 0.45, colors="black", linestyles="dashed",
                  label="T_Ideal" if i == 0 else None)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{app}, np={procs}" for app, procs in groups])
    ax.set_ylabel("compute time (s)")
    ax.set_title("Task migration: time per scheme, T_Ideal")
    ax.legend(fontsize="small")
    return figures.save(plt, fig, path)
