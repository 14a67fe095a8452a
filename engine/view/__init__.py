"""What the CLI and the app both show, as plain data or Rich text: the presentation model
of runs, comparisons and experiments (``model``), tables that fit a width (``layout``),
terminal plots (``plot``), the ``top`` view (``topview``) and figures formatted for people
(``figures``). The only part of the engine that imports Rich."""
