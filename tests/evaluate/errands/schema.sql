-- A small web shop for the mutant solvers' tests (tests/evaluate/test_mutant_kinds.py): one long task in
-- which every mutant kind applies (paged reads, a list write, a date range with an order at its edge, two
-- products of one name, an additive write that a repeat doubles).

CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    email       VARCHAR(120) NOT NULL UNIQUE,
    name        VARCHAR(80) NOT NULL,
    joined_at   TIMESTAMP NOT NULL
);

CREATE TABLE products (
    product_id INTEGER PRIMARY KEY,
    name       VARCHAR(60) NOT NULL,
    brand      VARCHAR(40) NOT NULL,
    price      DECIMAL(8, 2) NOT NULL CHECK (price > 0)
);

CREATE TABLE orders (
    order_id    INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
    placed_at   TIMESTAMP NOT NULL,
    status      VARCHAR(10) NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled')),
    product_id  INTEGER NOT NULL REFERENCES products (product_id),
    quantity    INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10)
);

CREATE TABLE notes (
    note_id     INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
    body        VARCHAR(200) NOT NULL,
    created_at  TIMESTAMP NOT NULL
);
