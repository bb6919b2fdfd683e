"""Everything written for machines rather than readers: SKOS and JSON-LD (linked_data),
llms.txt and each entry as Markdown (llms), the search records (search_index), the site
data files (data), and the whole site as a plain MkDocs/Zensical source (markdown).
May import: pages, figures, render, knowledge, kb, speed."""
