"""Drawings: the diagrams of the core ideas (diagrams) and the charts drawn from the entries'
own figures (charts). May import: render, knowledge, kb, speed."""
