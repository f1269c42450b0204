# SPDX-License-Identifier: BSD-3-Clause
"""python3-otf2's event stream without the locations that have no events (a libotf2 3.0 bug).

libotf2 3.0's global event reader frees the reader of a location whose first read finds
the end of its events, then follows that freed reader's link to the next location: a
use-after-free that python3-otf2 (which bundles that libotf2) crashes on once the memory
is reused, e.g. under the MALLOC_PERTURB_ meson sets for tests. A location without events
has nothing to merge, so the readers here leave it out (where the definitions count
events at all); its definition (and its event
count, 0) is read as before. vt's own reader (tools/lib/vtr_read.c) does the same."""


def events(reader):
    """What reader.events yields, for the locations whose definition counts events (all of
    them when no definition counts any: a writer that leaves every count 0 says nothing)."""
    locs = list(reader.definitions.locations)
    if any(l.number_of_events for l in locs):
        locs = [l for l in locs if l.number_of_events]
    return reader.events(locs)
