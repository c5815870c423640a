"""KataGo's analysis-engine JSON: queries checked into the review's position queries
(:mod:`~analysis.katajson.query`), their answers in KataGo's names (:mod:`~analysis.katajson.answer`),
and an engine speaking it on stdin and stdout (:mod:`~analysis.katajson.engine`,
``python -m analysis.katajson``), as KataGo's ``analysis`` command does."""
