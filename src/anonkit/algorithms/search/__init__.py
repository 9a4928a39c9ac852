"""Best-first search over generalized tables: IAB (spec §4.4, Arca & Hewett 2021). Each algorithm is
a module of its own; the state space (tables as distinct rows with counts, the successor rule, the
anonymity requirements) is ``_states`` and the release of a search result ``_release``."""
