"""What every plot of `scopedsm report` ends with."""


def save(plt, fig, path):
    """Lays the figure out, writes it to `path` as a PNG and closes it;
    returns True (the plot was drawn)."""
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
