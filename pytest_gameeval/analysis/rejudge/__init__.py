"""Records judged again by today's rules, with no model call (`gameeval rejudge`): one record
(`record.py`) and a whole report, records file or inspect log, written as a report (`report.py`).
It may import the layers below analysis and `report/` (reading, validating and writing reports);
not `rankings/` beside it (nor the other way round)."""
