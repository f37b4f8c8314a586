"""A seat at the table: `holdemjax play` deals a sit & go with a person in one seat and bots
(WebAssembly policies) in the others, in the browser (docs/play.md).

The tournament is the series engine's (`holdemjax.series.runner.run_series`, one tournament of
``sng-6``: every hand through the host's one hand loop); the person's seat is a policy whose
answers come from the page (`person.LivePerson`) and are recorded, so the replay file
reproduces byte for byte (`person.RecordedPerson`, `holdemjax replay`). The page is the
duplicate service's play page (its template, script and styles)."""
