-- The teaching pack: a lending library (docs/domain-packs.md walks through it).
-- Members borrow copies of books from branches; a loan is open until the copy comes back.

CREATE TABLE branches (
    branch_id  INTEGER PRIMARY KEY,
    name       VARCHAR(60) NOT NULL UNIQUE,
    city       VARCHAR(60) NOT NULL
);
COMMENT ON TABLE branches IS 'The library''s branches, where copies are shelved and lent.';

CREATE TABLE members (
    member_id       INTEGER PRIMARY KEY,
    card_number     VARCHAR(12) NOT NULL UNIQUE,
    name            VARCHAR(80) NOT NULL,
    email           VARCHAR(120) NOT NULL UNIQUE,
    home_branch_id  INTEGER NOT NULL REFERENCES branches (branch_id),
    joined_at       TIMESTAMP NOT NULL
);
COMMENT ON TABLE members IS 'People with a library card.';

CREATE TABLE books (
    book_id    INTEGER PRIMARY KEY,
    isbn       VARCHAR(13) NOT NULL UNIQUE,
    title      VARCHAR(200) NOT NULL,
    author     VARCHAR(120) NOT NULL,
    published  INTEGER NOT NULL CHECK (published BETWEEN 1800 AND 2026)
);
COMMENT ON TABLE books IS 'Titles in the catalogue (a book may have many copies).';

CREATE TABLE copies (
    copy_id    INTEGER PRIMARY KEY,
    book_id    INTEGER NOT NULL REFERENCES books (book_id),
    branch_id  INTEGER NOT NULL REFERENCES branches (branch_id),
    barcode    VARCHAR(10) NOT NULL UNIQUE,
    status     VARCHAR(10) NOT NULL CHECK (status IN ('on_shelf', 'on_loan', 'lost'))
);
COMMENT ON TABLE copies IS 'Physical copies of books, each shelved at one branch.';

CREATE TABLE loans (
    loan_id      INTEGER PRIMARY KEY,
    copy_id      INTEGER NOT NULL REFERENCES copies (copy_id) ON DELETE CASCADE,
    member_id    INTEGER NOT NULL REFERENCES members (member_id) ON DELETE CASCADE,
    borrowed_at  TIMESTAMP NOT NULL,
    due_on       DATE NOT NULL,
    returned_at  TIMESTAMP
);
COMMENT ON TABLE loans IS 'Who borrowed which copy and when; open while returned_at is NULL.';
