-- Human resources (modelled on the public data models of Workday- and BambooHR-like HR systems). Dialect: DuckDB.
--
-- Written for Stateforge: workers, supervisory organisations, positions and job profiles with pay grades,
-- time off (plans, balances, requests), payroll runs and payslips, compensation and its changes,
-- performance reviews and goals, onboarding and offboarding checklists, and access to business systems,
-- under plain names.
--
-- Foreign keys are declared for the schema model (fill order, audit, the write tools' ON DELETE semantics);
-- Stateforge does not declare them to DuckDB. Self-references: org_units.parent_unit_id,
-- employees.manager_id. org_units.hr_partner_id and org_units.head_id close a cycle with employees.

CREATE TABLE locations (
    location_id   SMALLINT     PRIMARY KEY,
    name          VARCHAR(60)  NOT NULL UNIQUE,
    city          VARCHAR(60)  NOT NULL,
    country_code  CHAR(2)      NOT NULL,
    currency      CHAR(3)      NOT NULL
);
COMMENT ON TABLE locations IS 'Offices: where people work; public holidays and pay currency follow the office.';

CREATE TABLE org_units (
    org_unit_id     SMALLINT     PRIMARY KEY,
    name            VARCHAR(60)  NOT NULL UNIQUE,
    code            VARCHAR(8)   NOT NULL UNIQUE,
    parent_unit_id  SMALLINT     REFERENCES org_units (org_unit_id) ON DELETE SET NULL,
    location_id     SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT,
    head_id         INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    hr_partner_id   INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    cost_center     CHAR(6)      NOT NULL UNIQUE,
    CHECK (parent_unit_id IS NULL OR parent_unit_id <> org_unit_id)
);
COMMENT ON TABLE org_units IS 'Supervisory organisations (a tree): each has a head and an HR partner who supports its people.';
COMMENT ON COLUMN org_units.hr_partner_id IS 'The HR business partner of the unit: sees and handles its people''s HR matters.';

CREATE TABLE pay_grades (
    pay_grade_id  SMALLINT      PRIMARY KEY,
    code          VARCHAR(4)    NOT NULL UNIQUE,
    min_salary    DECIMAL(10,2) NOT NULL CHECK (min_salary > 0),
    max_salary    DECIMAL(10,2) NOT NULL,
    CHECK (max_salary > min_salary)
);
COMMENT ON TABLE pay_grades IS 'Salary bands (G1 .. G10): a base salary lies between the grade''s minimum and maximum.';

CREATE TABLE job_profiles (
    job_profile_id  SMALLINT     PRIMARY KEY,
    title           VARCHAR(60)  NOT NULL UNIQUE,
    job_family      VARCHAR(30)  NOT NULL,
    pay_grade_id    SMALLINT     NOT NULL REFERENCES pay_grades (pay_grade_id) ON DELETE RESTRICT,
    is_manager      BOOLEAN      NOT NULL DEFAULT FALSE
);
COMMENT ON TABLE job_profiles IS 'Job profiles (Software Engineer II, Payroll Specialist, ...) with their family and pay grade.';

CREATE TABLE positions (
    position_id     INTEGER      PRIMARY KEY,
    code            VARCHAR(10)  NOT NULL UNIQUE,
    job_profile_id  SMALLINT     NOT NULL REFERENCES job_profiles (job_profile_id) ON DELETE RESTRICT,
    org_unit_id     SMALLINT     NOT NULL REFERENCES org_units (org_unit_id) ON DELETE RESTRICT,
    location_id     SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT,
    status          VARCHAR(8)   NOT NULL DEFAULT 'filled' CHECK (status IN ('open', 'filled', 'frozen')),
    opened_on       DATE         NOT NULL
);
COMMENT ON TABLE positions IS 'Budgeted positions (POS numbers) in an org unit: filled by one worker, open for hiring, or frozen.';

CREATE TABLE employees (
    employee_id      INTEGER      PRIMARY KEY,
    employee_number  VARCHAR(8)   NOT NULL UNIQUE,
    first_name       VARCHAR(40)  NOT NULL,
    last_name        VARCHAR(40)  NOT NULL,
    work_email       VARCHAR(254) NOT NULL UNIQUE,
    hire_date        DATE         NOT NULL,
    termination_date DATE,
    status           VARCHAR(12)  NOT NULL DEFAULT 'active' CHECK (status IN ('pre_hire', 'active', 'on_leave', 'terminated')),
    position_id      INTEGER      UNIQUE REFERENCES positions (position_id) ON DELETE SET NULL,
    org_unit_id      SMALLINT     NOT NULL REFERENCES org_units (org_unit_id) ON DELETE RESTRICT,
    manager_id       INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    location_id      SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT,
    security_role    VARCHAR(16)  NOT NULL DEFAULT 'employee'
                                  CHECK (security_role IN ('employee', 'manager', 'hr_partner', 'payroll_admin', 'it_admin')),
    CHECK (manager_id IS NULL OR manager_id <> employee_id),
    CHECK (termination_date IS NULL OR termination_date >= hire_date)
);
COMMENT ON TABLE employees IS 'Workers (E numbers): their position, org unit, manager and office; security_role decides what they may see and do.';
COMMENT ON COLUMN employees.security_role IS 'employee (self-service), manager (also their direct reports), hr_partner (the people of the units they partner), payroll_admin, it_admin.';
COMMENT ON COLUMN employees.status IS 'pre_hire (starts on hire_date), active, on_leave (long leave), terminated (on termination_date).';

CREATE TABLE employment_events (
    event_id        INTEGER      PRIMARY KEY,
    employee_id     INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    event_type      VARCHAR(12)  NOT NULL CHECK (event_type IN ('hire', 'transfer', 'promotion', 'termination')),
    effective_date  DATE         NOT NULL,
    from_unit_id    SMALLINT     REFERENCES org_units (org_unit_id) ON DELETE SET NULL,
    to_unit_id      SMALLINT     REFERENCES org_units (org_unit_id) ON DELETE SET NULL,
    recorded_by     INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    note            VARCHAR(200)
);
COMMENT ON TABLE employment_events IS 'The job history of a worker: hire, transfers between units, promotions, termination.';

CREATE TABLE emergency_contacts (
    contact_id    INTEGER      PRIMARY KEY,
    employee_id   INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    name          VARCHAR(80)  NOT NULL,
    relationship  VARCHAR(12)  NOT NULL CHECK (relationship IN ('spouse', 'partner', 'parent', 'sibling', 'friend', 'child')),
    phone         VARCHAR(30)  NOT NULL
);
COMMENT ON TABLE emergency_contacts IS 'Whom to call in an emergency: kept by the worker themself.';

CREATE TABLE compensation (
    employee_id     INTEGER       PRIMARY KEY REFERENCES employees (employee_id) ON DELETE CASCADE,
    pay_grade_id    SMALLINT      NOT NULL REFERENCES pay_grades (pay_grade_id) ON DELETE RESTRICT,
    base_salary     DECIMAL(10,2) NOT NULL CHECK (base_salary > 0),
    effective_date  DATE          NOT NULL,
    updated_by      INTEGER       REFERENCES employees (employee_id) ON DELETE SET NULL
);
COMMENT ON TABLE compensation IS 'A worker''s current annual base salary (in their office''s currency) and pay grade.';

CREATE TABLE compensation_changes (
    change_id       INTEGER       PRIMARY KEY,
    employee_id     INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    old_salary      DECIMAL(10,2) NOT NULL,
    new_salary      DECIMAL(10,2) NOT NULL CHECK (new_salary > 0),
    reason          VARCHAR(12)   NOT NULL CHECK (reason IN ('merit', 'promotion', 'market', 'correction')),
    effective_date  DATE          NOT NULL,
    status          VARCHAR(10)   NOT NULL DEFAULT 'proposed' CHECK (status IN ('proposed', 'approved', 'rejected')),
    entered_by      INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE RESTRICT,
    entered_at      TIMESTAMP     NOT NULL,
    approved_by     INTEGER       REFERENCES employees (employee_id) ON DELETE SET NULL,
    decided_at      TIMESTAMP,
    CHECK (decided_at IS NULL OR decided_at >= entered_at)
);
COMMENT ON TABLE compensation_changes IS 'Proposed salary changes: entered by a manager or payroll, approved or rejected by payroll.';

CREATE TABLE leave_types (
    leave_type_id      SMALLINT    PRIMARY KEY,
    code               VARCHAR(8)  NOT NULL UNIQUE,
    name               VARCHAR(40) NOT NULL UNIQUE,
    annual_days        SMALLINT    NOT NULL CHECK (annual_days BETWEEN 0 AND 60),
    max_carryover      SMALLINT    NOT NULL DEFAULT 0 CHECK (max_carryover >= 0),
    paid               BOOLEAN     NOT NULL DEFAULT TRUE,
    needs_approval     BOOLEAN     NOT NULL DEFAULT TRUE
);
COMMENT ON TABLE leave_types IS 'Time-off plans (Vacation, Sick, Parental, ...): days granted a year and how many carry over.';

CREATE TABLE holidays (
    holiday_id    INTEGER     PRIMARY KEY,
    location_id   SMALLINT    NOT NULL REFERENCES locations (location_id) ON DELETE CASCADE,
    holiday_date  DATE        NOT NULL,
    name          VARCHAR(60) NOT NULL,
    UNIQUE (location_id, holiday_date)
);
COMMENT ON TABLE holidays IS 'Public holidays per office: they are not working days and cost no leave.';

CREATE TABLE leave_balances (
    employee_id    INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    leave_type_id  SMALLINT     NOT NULL REFERENCES leave_types (leave_type_id) ON DELETE RESTRICT,
    year           SMALLINT     NOT NULL CHECK (year BETWEEN 2024 AND 2030),
    entitled_days  DECIMAL(5,1) NOT NULL CHECK (entitled_days >= 0),
    carried_over   DECIMAL(5,1) NOT NULL DEFAULT 0 CHECK (carried_over >= 0),
    used_days      DECIMAL(5,1) NOT NULL DEFAULT 0 CHECK (used_days >= 0),
    pending_days   DECIMAL(5,1) NOT NULL DEFAULT 0 CHECK (pending_days >= 0),
    PRIMARY KEY (employee_id, leave_type_id, year)
);
COMMENT ON TABLE leave_balances IS 'Days of each leave type per worker and year: entitled + carried over, used (approved) and pending.';

CREATE TABLE leave_requests (
    request_id     INTEGER      PRIMARY KEY,
    employee_id    INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    leave_type_id  SMALLINT     NOT NULL REFERENCES leave_types (leave_type_id) ON DELETE RESTRICT,
    start_date     DATE         NOT NULL,
    end_date       DATE         NOT NULL,
    days           DECIMAL(5,1) NOT NULL CHECK (days > 0),
    status         VARCHAR(10)  NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
    requested_at   TIMESTAMP    NOT NULL,
    approver_id    INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    decided_at     TIMESTAMP,
    comment        VARCHAR(200),
    CHECK (end_date >= start_date),
    CHECK (decided_at IS NULL OR decided_at >= requested_at)
);
COMMENT ON TABLE leave_requests IS 'Time-off requests: working days between two dates, approved or rejected by the worker''s manager.';
COMMENT ON COLUMN leave_requests.days IS 'Working days in the range: weekdays that are not holidays of the worker''s office.';

CREATE TABLE payroll_runs (
    run_id        INTEGER      PRIMARY KEY,
    name          VARCHAR(30)  NOT NULL UNIQUE,
    period_start  DATE         NOT NULL UNIQUE,
    period_end    DATE         NOT NULL,
    pay_date      DATE         NOT NULL,
    status        VARCHAR(10)  NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'calculated', 'approved', 'paid')),
    calculated_by INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    approved_by   INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    CHECK (period_end > period_start),
    CHECK (pay_date >= period_end)
);
COMMENT ON TABLE payroll_runs IS 'Monthly payroll runs: drafted, calculated into payslips, approved, then paid on the pay date.';

CREATE TABLE payslips (
    payslip_id   INTEGER       PRIMARY KEY,
    run_id       INTEGER       NOT NULL REFERENCES payroll_runs (run_id) ON DELETE CASCADE,
    employee_id  INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE RESTRICT,
    gross        DECIMAL(10,2) NOT NULL CHECK (gross >= 0),
    deductions   DECIMAL(10,2) NOT NULL CHECK (deductions >= 0),
    net          DECIMAL(10,2) NOT NULL,
    UNIQUE (run_id, employee_id)
);
COMMENT ON TABLE payslips IS 'One payslip per worker and run: a twelfth of the base salary plus adjustments, less deductions.';

CREATE TABLE payroll_adjustments (
    adjustment_id  INTEGER       PRIMARY KEY,
    run_id         INTEGER       NOT NULL REFERENCES payroll_runs (run_id) ON DELETE CASCADE,
    employee_id    INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE RESTRICT,
    kind           VARCHAR(12)   NOT NULL CHECK (kind IN ('bonus', 'overtime', 'allowance', 'deduction')),
    amount         DECIMAL(10,2) NOT NULL CHECK (amount > 0),
    entered_by     INTEGER       NOT NULL REFERENCES employees (employee_id) ON DELETE RESTRICT,
    note           VARCHAR(120)
);
COMMENT ON TABLE payroll_adjustments IS 'One-off pay items of a run (bonus, overtime, allowance, deduction), entered by payroll.';

CREATE TABLE review_cycles (
    cycle_id      SMALLINT     PRIMARY KEY,
    name          VARCHAR(40)  NOT NULL UNIQUE,
    period_start  DATE         NOT NULL,
    period_end    DATE         NOT NULL,
    status        VARCHAR(8)   NOT NULL DEFAULT 'closed' CHECK (status IN ('planned', 'open', 'closed')),
    CHECK (period_end > period_start)
);
COMMENT ON TABLE review_cycles IS 'Performance review cycles (half-years): open while reviews are written, then closed.';

CREATE TABLE reviews (
    review_id     INTEGER      PRIMARY KEY,
    cycle_id      SMALLINT     NOT NULL REFERENCES review_cycles (cycle_id) ON DELETE CASCADE,
    employee_id   INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    reviewer_id   INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    status        VARCHAR(16)  NOT NULL DEFAULT 'not_started' CHECK (status IN ('not_started', 'self_review', 'manager_review', 'completed')),
    rating        SMALLINT     CHECK (rating BETWEEN 1 AND 5),
    completed_at  TIMESTAMP,
    UNIQUE (cycle_id, employee_id)
);
COMMENT ON TABLE reviews IS 'A worker''s review in a cycle, written by their manager: rated 1 (below) to 5 (outstanding) when completed.';

CREATE TABLE goals (
    goal_id      INTEGER      PRIMARY KEY,
    employee_id  INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    cycle_id     SMALLINT     NOT NULL REFERENCES review_cycles (cycle_id) ON DELETE CASCADE,
    title        VARCHAR(80)  NOT NULL,
    weight       SMALLINT     NOT NULL CHECK (weight BETWEEN 5 AND 100),
    status       VARCHAR(12)  NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'achieved', 'missed', 'cancelled'))
);
COMMENT ON TABLE goals IS 'Goals of a worker for a review cycle, weighted (a worker''s weights in a cycle add up to at most 100).';

CREATE TABLE checklist_templates (
    template_id  SMALLINT     PRIMARY KEY,
    name         VARCHAR(40)  NOT NULL UNIQUE,
    kind         VARCHAR(12)  NOT NULL CHECK (kind IN ('onboarding', 'offboarding'))
);
COMMENT ON TABLE checklist_templates IS 'Onboarding and offboarding checklists to start from.';

CREATE TABLE systems (
    system_id          SMALLINT     PRIMARY KEY,
    name               VARCHAR(40)  NOT NULL UNIQUE,
    owner_id           INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    needs_approval     BOOLEAN      NOT NULL DEFAULT TRUE,
    sensitive          BOOLEAN      NOT NULL DEFAULT FALSE
);
COMMENT ON TABLE systems IS 'Business systems people get access to (email, the HR system, payroll, the CRM, ...).';

CREATE TABLE template_tasks (
    template_task_id  SMALLINT     PRIMARY KEY,
    template_id       SMALLINT     NOT NULL REFERENCES checklist_templates (template_id) ON DELETE CASCADE,
    title             VARCHAR(80)  NOT NULL,
    owner_role        VARCHAR(12)  NOT NULL CHECK (owner_role IN ('manager', 'hr_partner', 'it_admin', 'employee')),
    due_offset_days   SMALLINT     NOT NULL CHECK (due_offset_days BETWEEN -30 AND 60),
    system_id         SMALLINT     REFERENCES systems (system_id) ON DELETE SET NULL
);
COMMENT ON TABLE template_tasks IS 'The tasks of a checklist template: who does each, due some days from the start or last day.';

CREATE TABLE checklists (
    checklist_id  INTEGER      PRIMARY KEY,
    employee_id   INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    template_id   SMALLINT     NOT NULL REFERENCES checklist_templates (template_id) ON DELETE RESTRICT,
    kind          VARCHAR(12)  NOT NULL CHECK (kind IN ('onboarding', 'offboarding')),
    anchor_date   DATE         NOT NULL,
    started_by    INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    started_at    TIMESTAMP    NOT NULL,
    status        VARCHAR(12)  NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'completed', 'cancelled')),
    completed_at  TIMESTAMP
);
COMMENT ON TABLE checklists IS 'An onboarding (anchored at the start date) or offboarding (at the last day) checklist of a worker.';

CREATE TABLE checklist_tasks (
    task_id           INTEGER      PRIMARY KEY,
    checklist_id      INTEGER      NOT NULL REFERENCES checklists (checklist_id) ON DELETE CASCADE,
    template_task_id  SMALLINT     NOT NULL REFERENCES template_tasks (template_task_id) ON DELETE RESTRICT,
    assignee_id       INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    due_date          DATE         NOT NULL,
    status            VARCHAR(8)   NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'skipped')),
    completed_by      INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    completed_at      TIMESTAMP,
    UNIQUE (checklist_id, template_task_id)
);
COMMENT ON TABLE checklist_tasks IS 'The tasks of a worker''s checklist, each for the person the template''s owner role names.';

CREATE TABLE system_access (
    access_id     INTEGER      PRIMARY KEY,
    employee_id   INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    system_id     SMALLINT     NOT NULL REFERENCES systems (system_id) ON DELETE CASCADE,
    access_level  VARCHAR(8)   NOT NULL DEFAULT 'user' CHECK (access_level IN ('read', 'user', 'admin')),
    granted_by    INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    granted_at    TIMESTAMP    NOT NULL,
    revoked_at    TIMESTAMP,
    CHECK (revoked_at IS NULL OR revoked_at >= granted_at)
);
COMMENT ON TABLE system_access IS 'Who has access to which system, at what level, since when (revoked access keeps its row).';

CREATE TABLE access_requests (
    request_id    INTEGER      PRIMARY KEY,
    employee_id   INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    system_id     SMALLINT     NOT NULL REFERENCES systems (system_id) ON DELETE CASCADE,
    access_level  VARCHAR(8)   NOT NULL DEFAULT 'user' CHECK (access_level IN ('read', 'user', 'admin')),
    requested_by  INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE RESTRICT,
    requested_at  TIMESTAMP    NOT NULL,
    status        VARCHAR(10)  NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'granted')),
    approver_id   INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    decided_at    TIMESTAMP,
    CHECK (decided_at IS NULL OR decided_at >= requested_at)
);
COMMENT ON TABLE access_requests IS 'Requests for system access: approved by the worker''s manager where the system needs it, then granted by IT.';

CREATE TABLE hr_cases (
    case_id       INTEGER      PRIMARY KEY,
    number        VARCHAR(10)  NOT NULL UNIQUE,
    employee_id   INTEGER      NOT NULL REFERENCES employees (employee_id) ON DELETE CASCADE,
    hr_partner_id INTEGER      REFERENCES employees (employee_id) ON DELETE SET NULL,
    category      VARCHAR(12)  NOT NULL CHECK (category IN ('payroll', 'leave', 'benefits', 'relocation', 'policy', 'conduct')),
    subject       VARCHAR(120) NOT NULL,
    status        VARCHAR(8)   NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'closed')),
    opened_at     TIMESTAMP    NOT NULL,
    resolved_at   TIMESTAMP,
    CHECK (resolved_at IS NULL OR resolved_at >= opened_at)
);
COMMENT ON TABLE hr_cases IS 'Questions and cases workers raise with HR (HRC numbers), handled by their unit''s HR partner.';
