"""What is computed from the knowledge base: the concept graph and its analyses (graph), the
memory and speed arithmetic (calc), decision-guide walks (guides), engine comparison
(compare) and the term linker (link). May import: kb, speed."""
