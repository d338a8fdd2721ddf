-- The workplace: the HR, ITSM and meeting packs in one database, each in a DuckDB schema of its own (hr,
-- itsm, meeting; domain.yaml `members:`). Stateforge reads each member's schema.sql under its schema
-- (SET search_path TO hr; ...), then this file, with the search path back on main.
--
-- Written for Stateforge: what ties the three products together. A person is HR's worker: the ITSM user and
-- the meeting app's employee of a worker carry the worker's id (and name, e-mail, E number: the rules of
-- domain.yaml), so an incident's caller, a meeting's organizer and an HR record name the same person.

ALTER TABLE itsm.users ADD FOREIGN KEY (user_id) REFERENCES hr.employees (employee_id) ON DELETE RESTRICT;
ALTER TABLE meeting.employees ADD FOREIGN KEY (employee_id) REFERENCES hr.employees (employee_id) ON DELETE RESTRICT;
