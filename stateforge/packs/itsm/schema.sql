-- IT service management (modelled on the public data model of ServiceNow-like service desks). Dialect: DuckDB.
--
-- Written for Stateforge: the tables, columns and states follow what such products document publicly
-- (incident, problem, change_request, change_task, sysapproval_approver, cmdb_ci, cmdb_rel_ci,
-- sys_user_group, sys_user_grmember, contract_sla / task_sla, kb_knowledge, sc_cat_item, sc_request,
-- sc_req_item, sys_journal_field, sys_attachment, sys_audit), under plain names.
--
-- Foreign keys are declared for the schema model (fill order, audit, the write tools' ON DELETE semantics);
-- Stateforge does not declare them to DuckDB. Self-references: departments.parent_department_id,
-- users.manager_id, assignment_groups.parent_group_id, incidents.parent_incident_id.
-- Priorities follow the product's matrix: priority = impact + urgency - 1 (1 critical .. 5 planning).

CREATE TABLE locations (
    location_id   SMALLINT     PRIMARY KEY,
    name          VARCHAR(60)  NOT NULL UNIQUE,
    city          VARCHAR(60)  NOT NULL,
    country_code  CHAR(2)      NOT NULL,
    timezone      VARCHAR(40)  NOT NULL DEFAULT 'UTC'
);
COMMENT ON TABLE locations IS 'Offices and data centres: where people sit and where hardware is racked.';

CREATE TABLE departments (
    department_id        SMALLINT     PRIMARY KEY,
    name                 VARCHAR(60)  NOT NULL UNIQUE,
    cost_center          CHAR(6)      NOT NULL UNIQUE,
    location_id          SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT,
    parent_department_id SMALLINT     REFERENCES departments (department_id) ON DELETE SET NULL,
    CHECK (parent_department_id IS NULL OR parent_department_id <> department_id)
);
COMMENT ON TABLE departments IS 'Business departments (a tree); callers belong to one.';
COMMENT ON COLUMN departments.cost_center IS 'Finance cost centre code, CC + 4 digits.';

CREATE TABLE users (
    user_id        INTEGER      PRIMARY KEY,
    user_name      VARCHAR(40)  NOT NULL UNIQUE,
    first_name     VARCHAR(40)  NOT NULL,
    last_name      VARCHAR(40)  NOT NULL,
    email          VARCHAR(254) NOT NULL UNIQUE,
    title          VARCHAR(80)  NOT NULL,
    department_id  SMALLINT     NOT NULL REFERENCES departments (department_id) ON DELETE RESTRICT,
    location_id    SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT,
    manager_id     INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    vip            BOOLEAN      NOT NULL DEFAULT FALSE,
    active         BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at     TIMESTAMP    NOT NULL,
    CHECK (manager_id IS NULL OR manager_id <> user_id)
);
COMMENT ON TABLE users IS 'People: employees who call the service desk and the IT staff who work tickets.';
COMMENT ON COLUMN users.user_name IS 'Login name, first.last; how people are named in the tools.';
COMMENT ON COLUMN users.vip IS 'A VIP caller: the desk treats their incidents with priority.';
COMMENT ON COLUMN users.active IS 'False once the person has left: inactive users cannot be assigned work.';

CREATE TABLE roles (
    role_id      SMALLINT     PRIMARY KEY,
    name         VARCHAR(40)  NOT NULL UNIQUE,
    description  VARCHAR(200) NOT NULL
);
COMMENT ON TABLE roles IS 'Roles that grant what a user may do (itil: work tickets; cab_member: approve changes; ...).';

CREATE TABLE user_roles (
    user_id     INTEGER   NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    role_id     SMALLINT  NOT NULL REFERENCES roles (role_id) ON DELETE CASCADE,
    granted_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (user_id, role_id)
);
COMMENT ON TABLE user_roles IS 'Which user holds which role, and since when.';

CREATE TABLE assignment_groups (
    group_id         SMALLINT     PRIMARY KEY,
    name             VARCHAR(60)  NOT NULL UNIQUE,
    group_type       VARCHAR(12)  NOT NULL DEFAULT 'support'
                                  CHECK (group_type IN ('support', 'change', 'fulfilment', 'problem')),
    manager_id       INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    parent_group_id  SMALLINT     REFERENCES assignment_groups (group_id) ON DELETE SET NULL,
    email            VARCHAR(254) NOT NULL,
    active           BOOLEAN      NOT NULL DEFAULT TRUE,
    created_at       TIMESTAMP    NOT NULL,
    CHECK (parent_group_id IS NULL OR parent_group_id <> group_id)
);
COMMENT ON TABLE assignment_groups IS 'Teams that tickets are assigned to (Service Desk, Network, Database, ...).';
COMMENT ON COLUMN assignment_groups.group_type IS 'What the team mostly works: support (incidents), change, fulfilment (requests), problem.';

CREATE TABLE group_members (
    group_id   SMALLINT  NOT NULL REFERENCES assignment_groups (group_id) ON DELETE CASCADE,
    user_id    INTEGER   NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    joined_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
COMMENT ON TABLE group_members IS 'Members of assignment groups: only members may be assigned the group''s tickets.';

CREATE TABLE vendors (
    vendor_id  SMALLINT     PRIMARY KEY,
    name       VARCHAR(60)  NOT NULL UNIQUE,
    website    VARCHAR(120)
);
COMMENT ON TABLE vendors IS 'Manufacturers and publishers of configuration items.';

CREATE TABLE ci_classes (
    class_id  SMALLINT     PRIMARY KEY,
    name      VARCHAR(40)  NOT NULL UNIQUE,
    prefix    VARCHAR(4)   NOT NULL UNIQUE
);
COMMENT ON TABLE ci_classes IS 'Classes of configuration items (server, database, application, business service, ...).';
COMMENT ON COLUMN ci_classes.prefix IS 'Start of the names of the class''s items (srv, db, app, ...).';

CREATE TABLE configuration_items (
    ci_id             INTEGER      PRIMARY KEY,
    name              VARCHAR(40)  NOT NULL UNIQUE,
    class_id          SMALLINT     NOT NULL REFERENCES ci_classes (class_id) ON DELETE RESTRICT,
    vendor_id         SMALLINT     REFERENCES vendors (vendor_id) ON DELETE SET NULL,
    owned_by          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    support_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    location_id       SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT,
    environment       VARCHAR(12)  NOT NULL DEFAULT 'production'
                                   CHECK (environment IN ('production', 'staging', 'test', 'development')),
    operational_status VARCHAR(20) NOT NULL DEFAULT 'operational'
                                   CHECK (operational_status IN ('operational', 'non_operational', 'repair_in_progress', 'retired')),
    criticality       SMALLINT     NOT NULL DEFAULT 3 CHECK (criticality BETWEEN 1 AND 4),
    ip_address        VARCHAR(15),
    installed_at      TIMESTAMP    NOT NULL
);
COMMENT ON TABLE configuration_items IS 'The CMDB: servers, databases, applications, network gear and the business services built on them.';
COMMENT ON COLUMN configuration_items.criticality IS '1 mission critical, 2 high, 3 medium, 4 low.';
COMMENT ON COLUMN configuration_items.support_group_id IS 'The team that supports the item: incidents on it go there by default.';

CREATE TABLE ci_relation_types (
    type_id           SMALLINT     PRIMARY KEY,
    name              VARCHAR(40)  NOT NULL UNIQUE,
    parent_descriptor VARCHAR(20)  NOT NULL,
    child_descriptor  VARCHAR(20)  NOT NULL
);
COMMENT ON TABLE ci_relation_types IS 'Kinds of CMDB relation, read from the parent (Depends on) and from the child (Used by).';

CREATE TABLE ci_relation_suggestions (
    parent_class_id  SMALLINT  NOT NULL REFERENCES ci_classes (class_id) ON DELETE CASCADE,
    type_id          SMALLINT  NOT NULL REFERENCES ci_relation_types (type_id) ON DELETE CASCADE,
    child_class_id   SMALLINT  NOT NULL REFERENCES ci_classes (class_id) ON DELETE CASCADE,
    PRIMARY KEY (parent_class_id, type_id, child_class_id)
);
COMMENT ON TABLE ci_relation_suggestions IS 'The relations the CMDB allows between classes (an application Runs on a virtual machine, a business service Depends on an application); every relation follows one.';

-- the CMDB's catalogue: classes, relation types and the relations suggested between classes
INSERT INTO ci_classes (class_id, name, prefix) VALUES
    (1, 'Server', 'srv'), (2, 'Virtual Machine', 'vm'), (3, 'Database', 'db'), (4, 'Application', 'app'),
    (5, 'Network Device', 'net'), (6, 'Storage Array', 'sto'), (7, 'Business Service', 'svc'),
    (8, 'Load Balancer', 'lb');
INSERT INTO ci_relation_types (type_id, name, parent_descriptor, child_descriptor) VALUES
    (1, 'Depends on::Used by', 'Depends on', 'Used by'), (2, 'Runs on::Runs', 'Runs on', 'Runs'),
    (3, 'Hosted on::Hosts', 'Hosted on', 'Hosts'), (4, 'Connected by::Connects', 'Connected by', 'Connects'),
    (5, 'Contains::Contained by', 'Contains', 'Contained by');
INSERT INTO ci_relation_suggestions (parent_class_id, type_id, child_class_id) VALUES
    (7, 1, 4), (7, 5, 7),                           -- a business service depends on applications, contains services
    (4, 1, 3), (4, 2, 2), (4, 2, 1), (4, 1, 4), (4, 1, 8),  -- an application: databases, where it runs, other apps, load balancers
    (3, 2, 2), (3, 2, 1), (3, 1, 6),                -- a database runs on a VM or a server, keeps its data on storage
    (2, 3, 1),                                      -- a virtual machine is hosted on a server
    (1, 4, 5), (1, 1, 6),                           -- a server is connected by network gear, uses storage
    (8, 4, 5), (8, 1, 2), (8, 1, 1),                -- a load balancer is connected by the network, fronts VMs and servers
    (6, 4, 5),                                      -- a storage array is connected by the network
    (5, 4, 5);                                      -- network gear uplinks to other network gear

CREATE TABLE ci_relationships (
    relationship_id  INTEGER   PRIMARY KEY,
    parent_ci_id     INTEGER   NOT NULL REFERENCES configuration_items (ci_id) ON DELETE CASCADE,
    child_ci_id      INTEGER   NOT NULL REFERENCES configuration_items (ci_id) ON DELETE CASCADE,
    type_id          SMALLINT  NOT NULL REFERENCES ci_relation_types (type_id) ON DELETE RESTRICT,
    created_at       TIMESTAMP NOT NULL,
    UNIQUE (parent_ci_id, child_ci_id, type_id),
    CHECK (parent_ci_id <> child_ci_id)
);
COMMENT ON TABLE ci_relationships IS 'Edges of the CMDB graph: the parent <parent_descriptor> the child (app Depends on db).';

CREATE TABLE categories (
    category_id       SMALLINT     PRIMARY KEY,
    name              VARCHAR(30)  NOT NULL,
    subcategory       VARCHAR(30)  NOT NULL,
    default_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    UNIQUE (name, subcategory)
);
COMMENT ON TABLE categories IS 'Incident and problem categories with their subcategory, and the team they route to.';

CREATE TABLE sla_definitions (
    sla_id            SMALLINT     PRIMARY KEY,
    name              VARCHAR(60)  NOT NULL UNIQUE,
    target            VARCHAR(10)  NOT NULL CHECK (target IN ('response', 'resolution')),
    priority          SMALLINT     NOT NULL CHECK (priority BETWEEN 1 AND 5),
    duration_minutes  INTEGER      NOT NULL CHECK (duration_minutes > 0),
    UNIQUE (target, priority)
);
COMMENT ON TABLE sla_definitions IS 'SLA targets by priority: time to respond (an owner is assigned) and to resolve.';

CREATE TABLE problems (
    problem_id           INTEGER      PRIMARY KEY,
    number               VARCHAR(10)  NOT NULL UNIQUE,
    short_description    VARCHAR(120) NOT NULL,
    category_id          SMALLINT     NOT NULL REFERENCES categories (category_id) ON DELETE RESTRICT,
    ci_id                INTEGER      REFERENCES configuration_items (ci_id) ON DELETE SET NULL,
    state                VARCHAR(20)  NOT NULL DEFAULT 'new'
                                      CHECK (state IN ('new', 'assess', 'root_cause_analysis', 'fix_in_progress', 'resolved', 'closed')),
    priority             SMALLINT     NOT NULL DEFAULT 4 CHECK (priority BETWEEN 1 AND 5),
    opened_by            INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    opened_at            TIMESTAMP    NOT NULL,
    assignment_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    assigned_to          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    known_error          BOOLEAN      NOT NULL DEFAULT FALSE,
    root_cause           VARCHAR(400),
    workaround           VARCHAR(400),
    resolved_at          TIMESTAMP,
    closed_at            TIMESTAMP,
    CHECK (resolved_at IS NULL OR resolved_at >= opened_at),
    CHECK (closed_at IS NULL OR (resolved_at IS NOT NULL AND closed_at >= resolved_at))
);
COMMENT ON TABLE problems IS 'Problems: the unknown cause of one or more incidents, investigated until fixed (PRB numbers).';
COMMENT ON COLUMN problems.known_error IS 'The root cause is known and a workaround is documented.';

CREATE TABLE changes (
    change_id            INTEGER      PRIMARY KEY,
    number               VARCHAR(10)  NOT NULL UNIQUE,
    short_description    VARCHAR(120) NOT NULL,
    change_type          VARCHAR(10)  NOT NULL DEFAULT 'normal' CHECK (change_type IN ('standard', 'normal', 'emergency')),
    risk                 VARCHAR(10)  NOT NULL DEFAULT 'moderate' CHECK (risk IN ('low', 'moderate', 'high', 'very_high')),
    impact               SMALLINT     NOT NULL DEFAULT 3 CHECK (impact BETWEEN 1 AND 3),
    state                VARCHAR(12)  NOT NULL DEFAULT 'new'
                                      CHECK (state IN ('new', 'assess', 'authorize', 'scheduled', 'implement', 'review', 'closed', 'canceled')),
    requested_by         INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    requested_at         TIMESTAMP    NOT NULL,
    assignment_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    assigned_to          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    ci_id                INTEGER      REFERENCES configuration_items (ci_id) ON DELETE SET NULL,
    problem_id           INTEGER      REFERENCES problems (problem_id) ON DELETE SET NULL,
    planned_start        TIMESTAMP    NOT NULL,
    planned_end          TIMESTAMP    NOT NULL,
    actual_start         TIMESTAMP,
    actual_end           TIMESTAMP,
    close_code           VARCHAR(24)  CHECK (close_code IN ('successful', 'successful_with_issues', 'unsuccessful')),
    closed_at            TIMESTAMP,
    CHECK (planned_end > planned_start),
    CHECK (actual_end IS NULL OR (actual_start IS NOT NULL AND actual_end >= actual_start))
);
COMMENT ON TABLE changes IS 'Change requests (CHG numbers): planned work on a CI, assessed for risk, approved by the CAB, implemented, reviewed.';
COMMENT ON COLUMN changes.risk IS 'Assessed risk: high and very_high changes need an approved CAB review before implementation.';
COMMENT ON COLUMN changes.change_type IS 'standard: pre-approved and repeatable; normal: CAB approval; emergency: expedited.';

CREATE TABLE cab_meetings (
    meeting_id    INTEGER      PRIMARY KEY,
    name          VARCHAR(60)  NOT NULL,
    scheduled_at  TIMESTAMP    NOT NULL UNIQUE,
    chair_id      INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    location_id   SMALLINT     NOT NULL REFERENCES locations (location_id) ON DELETE RESTRICT
);
COMMENT ON TABLE cab_meetings IS 'Weekly Change Advisory Board meetings, chaired by a change manager.';

CREATE TABLE cab_agenda_items (
    meeting_id  INTEGER     NOT NULL REFERENCES cab_meetings (meeting_id) ON DELETE CASCADE,
    change_id   INTEGER     NOT NULL REFERENCES changes (change_id) ON DELETE CASCADE,
    outcome     VARCHAR(10) NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'approved', 'rejected', 'deferred')),
    PRIMARY KEY (meeting_id, change_id)
);
COMMENT ON TABLE cab_agenda_items IS 'Changes put on a CAB meeting''s agenda, and what the board decided.';

CREATE TABLE change_approvals (
    approval_id   INTEGER      PRIMARY KEY,
    change_id     INTEGER      NOT NULL REFERENCES changes (change_id) ON DELETE CASCADE,
    approver_id   INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    state         VARCHAR(10)  NOT NULL DEFAULT 'requested' CHECK (state IN ('requested', 'approved', 'rejected', 'cancelled')),
    requested_at  TIMESTAMP    NOT NULL,
    decided_at    TIMESTAMP,
    comments      VARCHAR(300),
    UNIQUE (change_id, approver_id),
    CHECK (decided_at IS NULL OR decided_at >= requested_at)
);
COMMENT ON TABLE change_approvals IS 'Approvals of a change asked of CAB members: requested, then approved or rejected.';

CREATE TABLE change_tasks (
    task_id              INTEGER      PRIMARY KEY,
    number               VARCHAR(11)  NOT NULL UNIQUE,
    change_id            INTEGER      NOT NULL REFERENCES changes (change_id) ON DELETE CASCADE,
    short_description    VARCHAR(120) NOT NULL,
    state                VARCHAR(12)  NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'in_progress', 'closed', 'canceled')),
    assignment_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    assigned_to          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    opened_at            TIMESTAMP    NOT NULL,
    closed_at            TIMESTAMP,
    CHECK (closed_at IS NULL OR closed_at >= opened_at)
);
COMMENT ON TABLE change_tasks IS 'The steps of a change''s implementation plan (CTASK numbers).';

CREATE TABLE incidents (
    incident_id          INTEGER      PRIMARY KEY,
    number               VARCHAR(10)  NOT NULL UNIQUE,
    short_description    VARCHAR(120) NOT NULL,
    description          VARCHAR(1000),
    caller_id            INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    opened_by            INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    opened_at            TIMESTAMP    NOT NULL,
    contact_type         VARCHAR(12)  NOT NULL DEFAULT 'self_service'
                                      CHECK (contact_type IN ('phone', 'email', 'self_service', 'walk_in', 'monitoring')),
    category_id          SMALLINT     NOT NULL REFERENCES categories (category_id) ON DELETE RESTRICT,
    ci_id                INTEGER      REFERENCES configuration_items (ci_id) ON DELETE SET NULL,
    impact               SMALLINT     NOT NULL DEFAULT 3 CHECK (impact BETWEEN 1 AND 3),
    urgency              SMALLINT     NOT NULL DEFAULT 3 CHECK (urgency BETWEEN 1 AND 3),
    priority             SMALLINT     NOT NULL DEFAULT 5 CHECK (priority BETWEEN 1 AND 5),
    state                VARCHAR(12)  NOT NULL DEFAULT 'new'
                                      CHECK (state IN ('new', 'in_progress', 'on_hold', 'resolved', 'closed', 'canceled')),
    hold_reason          VARCHAR(20)  CHECK (hold_reason IN ('awaiting_caller', 'awaiting_change', 'awaiting_vendor', 'awaiting_problem')),
    assignment_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    assigned_to          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    assigned_at          TIMESTAMP,
    major_incident       BOOLEAN      NOT NULL DEFAULT FALSE,
    parent_incident_id   INTEGER      REFERENCES incidents (incident_id) ON DELETE SET NULL,
    problem_id           INTEGER      REFERENCES problems (problem_id) ON DELETE SET NULL,
    caused_by_change_id  INTEGER      REFERENCES changes (change_id) ON DELETE SET NULL,
    resolved_by          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    resolved_at          TIMESTAMP,
    close_code           VARCHAR(24)  CHECK (close_code IN ('solved', 'workaround', 'not_reproducible', 'duplicate', 'user_error', 'canceled')),
    close_notes          VARCHAR(400),
    closed_at            TIMESTAMP,
    reopen_count         SMALLINT     NOT NULL DEFAULT 0 CHECK (reopen_count >= 0),
    CHECK (priority = impact + urgency - 1),
    CHECK (assigned_at IS NULL OR assigned_at >= opened_at),
    CHECK (resolved_at IS NULL OR resolved_at >= opened_at),
    CHECK (closed_at IS NULL OR (resolved_at IS NOT NULL AND closed_at >= resolved_at)),
    CHECK (parent_incident_id IS NULL OR parent_incident_id <> incident_id)
);
COMMENT ON TABLE incidents IS 'Incidents (INC numbers): an unplanned interruption reported by a caller, worked by an assignment group until resolved, then closed.';
COMMENT ON COLUMN incidents.priority IS 'impact + urgency - 1: 1 critical, 2 high, 3 moderate, 4 low, 5 planning.';
COMMENT ON COLUMN incidents.impact IS '1 high (many users or a whole service), 2 medium, 3 low (one person).';
COMMENT ON COLUMN incidents.urgency IS '1 high (work stopped), 2 medium, 3 low.';
COMMENT ON COLUMN incidents.state IS 'new -> in_progress (an owner) -> on_hold <-> in_progress -> resolved -> closed; or canceled.';
COMMENT ON COLUMN incidents.major_incident IS 'Declared a major incident: run by the major-incident manager.';
COMMENT ON COLUMN incidents.parent_incident_id IS 'A child incident of a major one (the same outage reported again).';

CREATE TABLE incident_journal (
    entry_id     INTEGER       PRIMARY KEY,
    incident_id  INTEGER       NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
    author_id    INTEGER       NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    kind         VARCHAR(10)   NOT NULL DEFAULT 'work_note' CHECK (kind IN ('work_note', 'comment')),
    body         VARCHAR(1000) NOT NULL,
    created_at   TIMESTAMP     NOT NULL
);
COMMENT ON TABLE incident_journal IS 'The activity stream of an incident: work notes (internal) and comments (seen by the caller).';

CREATE TABLE incident_history (
    history_id   INTEGER      PRIMARY KEY,
    incident_id  INTEGER      NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
    field_name   VARCHAR(30)  NOT NULL CHECK (field_name IN ('state', 'priority', 'assignment_group', 'assigned_to', 'category')),
    old_value    VARCHAR(60),
    new_value    VARCHAR(60),
    changed_by   INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    changed_at   TIMESTAMP    NOT NULL
);
COMMENT ON TABLE incident_history IS 'The audit trail of an incident: which field changed from what to what, by whom, when.';

CREATE TABLE attachments (
    attachment_id  INTEGER      PRIMARY KEY,
    incident_id    INTEGER      NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
    file_name      VARCHAR(120) NOT NULL,
    content_type   VARCHAR(60)  NOT NULL,
    size_bytes     INTEGER      NOT NULL CHECK (size_bytes > 0 AND size_bytes <= 26214400),
    uploaded_by    INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    uploaded_at    TIMESTAMP    NOT NULL
);
COMMENT ON TABLE attachments IS 'Files attached to incidents (screenshots, logs): metadata only, at most 25 MB each.';

CREATE TABLE task_slas (
    task_sla_id   INTEGER     PRIMARY KEY,
    incident_id   INTEGER     NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
    sla_id        SMALLINT    NOT NULL REFERENCES sla_definitions (sla_id) ON DELETE RESTRICT,
    start_time    TIMESTAMP   NOT NULL,
    due_at        TIMESTAMP   NOT NULL,
    stop_time     TIMESTAMP,
    stage         VARCHAR(12) NOT NULL DEFAULT 'in_progress' CHECK (stage IN ('in_progress', 'achieved', 'breached', 'cancelled')),
    has_breached  BOOLEAN     NOT NULL DEFAULT FALSE,
    breached_at   TIMESTAMP,
    UNIQUE (incident_id, sla_id),
    CHECK (due_at > start_time),
    CHECK (stop_time IS NULL OR stop_time >= start_time),
    CHECK (breached_at IS NULL OR breached_at >= start_time)
);
COMMENT ON TABLE task_slas IS 'The SLA clocks of an incident: started when it opens, due by the definition''s duration, stopped when met; breached when past due.';
COMMENT ON COLUMN task_slas.breached_at IS 'When the clock passed due_at without being stopped (the due time itself).';

CREATE TABLE notifications (
    notification_id  INTEGER      PRIMARY KEY,
    incident_id      INTEGER      NOT NULL REFERENCES incidents (incident_id) ON DELETE CASCADE,
    recipient_id     INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    channel          VARCHAR(8)   NOT NULL DEFAULT 'email' CHECK (channel IN ('email', 'sms', 'push')),
    subject          VARCHAR(160) NOT NULL,
    sent_at          TIMESTAMP    NOT NULL
);
COMMENT ON TABLE notifications IS 'Messages sent about an incident (to the caller, the assignee, the major-incident manager).';

CREATE TABLE knowledge_bases (
    kb_id     SMALLINT     PRIMARY KEY,
    title     VARCHAR(60)  NOT NULL UNIQUE,
    owner_id  INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    audience  VARCHAR(10)  NOT NULL DEFAULT 'employees' CHECK (audience IN ('employees', 'it_staff'))
);
COMMENT ON TABLE knowledge_bases IS 'Knowledge bases: one for employees (self-help), one for IT staff (runbooks), ...';

CREATE TABLE kb_articles (
    article_id         INTEGER       PRIMARY KEY,
    number             VARCHAR(10)   NOT NULL UNIQUE,
    kb_id              SMALLINT      NOT NULL REFERENCES knowledge_bases (kb_id) ON DELETE CASCADE,
    category_id        SMALLINT      NOT NULL REFERENCES categories (category_id) ON DELETE RESTRICT,
    author_id          INTEGER       NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    short_description  VARCHAR(120)  NOT NULL,
    body               VARCHAR(2000) NOT NULL,
    workflow_state     VARCHAR(10)   NOT NULL DEFAULT 'draft' CHECK (workflow_state IN ('draft', 'review', 'published', 'retired')),
    created_at         TIMESTAMP     NOT NULL,
    published_at       TIMESTAMP,
    view_count         INTEGER       NOT NULL DEFAULT 0 CHECK (view_count >= 0),
    CHECK (published_at IS NULL OR published_at >= created_at)
);
COMMENT ON TABLE kb_articles IS 'Knowledge articles (KB numbers): written as drafts, reviewed, published, retired.';

CREATE TABLE kb_feedback (
    feedback_id  INTEGER      PRIMARY KEY,
    article_id   INTEGER      NOT NULL REFERENCES kb_articles (article_id) ON DELETE CASCADE,
    user_id      INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    rating       SMALLINT     NOT NULL CHECK (rating BETWEEN 1 AND 5),
    helpful      BOOLEAN      NOT NULL,
    comments     VARCHAR(300),
    created_at   TIMESTAMP    NOT NULL
);
COMMENT ON TABLE kb_feedback IS 'Readers'' ratings of articles (1 to 5 stars, and whether it helped).';

CREATE TABLE catalog_categories (
    catalog_category_id  SMALLINT     PRIMARY KEY,
    title                VARCHAR(40)  NOT NULL UNIQUE
);
COMMENT ON TABLE catalog_categories IS 'Sections of the service catalogue (Hardware, Software, Access, ...).';

CREATE TABLE catalog_items (
    item_id               SMALLINT      PRIMARY KEY,
    name                  VARCHAR(60)   NOT NULL UNIQUE,
    catalog_category_id   SMALLINT      NOT NULL REFERENCES catalog_categories (catalog_category_id) ON DELETE RESTRICT,
    fulfillment_group_id  SMALLINT      NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    price                 DECIMAL(8,2)  NOT NULL DEFAULT 0 CHECK (price >= 0),
    requires_approval     BOOLEAN       NOT NULL DEFAULT FALSE,
    delivery_days         SMALLINT      NOT NULL DEFAULT 3 CHECK (delivery_days BETWEEN 1 AND 30),
    max_quantity          SMALLINT      NOT NULL DEFAULT 1 CHECK (max_quantity BETWEEN 1 AND 10),
    active                BOOLEAN       NOT NULL DEFAULT TRUE
);
COMMENT ON TABLE catalog_items IS 'What employees can order: laptops, software licences, access; some need their manager''s approval.';

CREATE TABLE requests (
    request_id      INTEGER      PRIMARY KEY,
    number          VARCHAR(10)  NOT NULL UNIQUE,
    requested_for   INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    opened_by       INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    opened_at       TIMESTAMP    NOT NULL,
    state           VARCHAR(12)  NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'in_progress', 'closed', 'canceled')),
    closed_at       TIMESTAMP,
    CHECK (closed_at IS NULL OR closed_at >= opened_at)
);
COMMENT ON TABLE requests IS 'Service requests (REQ numbers): one order from the catalogue, holding one or more requested items.';

CREATE TABLE requested_items (
    ritm_id              INTEGER      PRIMARY KEY,
    number               VARCHAR(11)  NOT NULL UNIQUE,
    request_id           INTEGER      NOT NULL REFERENCES requests (request_id) ON DELETE CASCADE,
    item_id              SMALLINT     NOT NULL REFERENCES catalog_items (item_id) ON DELETE RESTRICT,
    quantity             SMALLINT     NOT NULL DEFAULT 1 CHECK (quantity BETWEEN 1 AND 10),
    state                VARCHAR(20)  NOT NULL DEFAULT 'pending_approval'
                                      CHECK (state IN ('pending_approval', 'approved', 'work_in_progress', 'fulfilled', 'rejected', 'canceled')),
    assignment_group_id  SMALLINT     NOT NULL REFERENCES assignment_groups (group_id) ON DELETE RESTRICT,
    assigned_to          INTEGER      REFERENCES users (user_id) ON DELETE SET NULL,
    opened_at            TIMESTAMP    NOT NULL,
    due_date             DATE         NOT NULL,
    closed_at            TIMESTAMP,
    CHECK (closed_at IS NULL OR closed_at >= opened_at)
);
COMMENT ON TABLE requested_items IS 'The items of a request (RITM numbers): approved, then fulfilled by the item''s fulfilment group.';

CREATE TABLE request_approvals (
    approval_id   INTEGER      PRIMARY KEY,
    ritm_id       INTEGER      NOT NULL REFERENCES requested_items (ritm_id) ON DELETE CASCADE,
    approver_id   INTEGER      NOT NULL REFERENCES users (user_id) ON DELETE RESTRICT,
    state         VARCHAR(10)  NOT NULL DEFAULT 'requested' CHECK (state IN ('requested', 'approved', 'rejected', 'cancelled')),
    requested_at  TIMESTAMP    NOT NULL,
    decided_at    TIMESTAMP,
    UNIQUE (ritm_id, approver_id),
    CHECK (decided_at IS NULL OR decided_at >= requested_at)
);
COMMENT ON TABLE request_approvals IS 'Approvals of requested items, asked of the requester''s manager.';
