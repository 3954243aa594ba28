"""Published MLPerf Inference results: read a result tree (tree, metrics), match its accelerators
(accelerators), store the results as external runs (store), and ship them as data (shipped)."""
