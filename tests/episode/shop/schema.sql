-- A small shop for the episode and tool tests (DuckDB dialect). It holds every foreign-key action the
-- write tools enforce (ON DELETE / ON UPDATE: RESTRICT, NO ACTION, CASCADE, SET NULL, SET DEFAULT), an
-- identity key (orders), max+1 keys, a text key, composite keys, a key on a UNIQUE column, a table with no
-- key, UNIQUE, CHECK, NOT NULL, VARCHAR(n), comments, and two domain rules (domain.yaml).

CREATE SEQUENCE orders_seq START 1;

CREATE TABLE carriers (
    carrier_id INTEGER     PRIMARY KEY,
    name       VARCHAR(40) NOT NULL UNIQUE
);
COMMENT ON TABLE carriers IS 'Parcel services that ship orders.';

CREATE TABLE categories (
    code VARCHAR(10) PRIMARY KEY,
    name VARCHAR(40) NOT NULL UNIQUE
);

CREATE TABLE customers (
    customer_id BIGINT       PRIMARY KEY,
    email       VARCHAR(120) NOT NULL UNIQUE,
    name        VARCHAR(60)  NOT NULL,
    tier        VARCHAR(8)   NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'pro')),
    referred_by BIGINT       REFERENCES customers (customer_id) ON DELETE SET NULL ON UPDATE CASCADE,
    created_at  TIMESTAMP    NOT NULL
);
COMMENT ON TABLE customers IS 'People who buy.';
COMMENT ON COLUMN customers.email IS 'Login address.';

CREATE TABLE newsletter (
    email         VARCHAR(120) PRIMARY KEY REFERENCES customers (email) ON DELETE CASCADE ON UPDATE CASCADE,
    subscribed_at TIMESTAMP    NOT NULL
);

CREATE TABLE products (
    product_id    INTEGER      PRIMARY KEY,
    sku           VARCHAR(20)  NOT NULL UNIQUE,
    category_code VARCHAR(10)  NOT NULL REFERENCES categories (code) ON DELETE RESTRICT ON UPDATE CASCADE,
    title         VARCHAR(80)  NOT NULL,
    price         DECIMAL(8,2) NOT NULL CHECK (price >= 0),
    in_stock      BOOLEAN      NOT NULL DEFAULT TRUE
);

CREATE TABLE orders (
    order_id    BIGINT      PRIMARY KEY DEFAULT nextval('orders_seq'),
    customer_id BIGINT      NOT NULL REFERENCES customers (customer_id) ON DELETE CASCADE ON UPDATE CASCADE,
    status      VARCHAR(10) NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'paid', 'shipped')),
    placed_at   TIMESTAMP   NOT NULL,
    note        VARCHAR(200)
);

CREATE TABLE order_lines (
    order_id   BIGINT  NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
    line_no    INTEGER NOT NULL,
    product_id INTEGER NOT NULL REFERENCES products (product_id) ON DELETE RESTRICT,
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (order_id, line_no)
);

CREATE TABLE shipments (
    shipment_id BIGINT      PRIMARY KEY,
    order_id    BIGINT      NOT NULL REFERENCES orders (order_id) ON DELETE CASCADE,
    carrier_id  INTEGER     NOT NULL DEFAULT 1 REFERENCES carriers (carrier_id) ON DELETE SET DEFAULT,
    tracking    VARCHAR(30) UNIQUE
);

CREATE TABLE invoices (
    invoice_id BIGINT        PRIMARY KEY,
    order_id   BIGINT        NOT NULL UNIQUE REFERENCES orders (order_id) ON DELETE RESTRICT ON UPDATE RESTRICT,
    amount     DECIMAL(10,2) NOT NULL CHECK (amount >= 0)
);

CREATE TABLE reviews (
    review_id   BIGINT       PRIMARY KEY,
    product_id  INTEGER      NOT NULL REFERENCES products (product_id) ON DELETE CASCADE,
    customer_id BIGINT       REFERENCES customers (customer_id) ON DELETE SET NULL ON UPDATE SET NULL,
    rating      SMALLINT     NOT NULL CHECK (rating BETWEEN 1 AND 5),
    body        VARCHAR(500)
);

CREATE TABLE wishlist (
    customer_id BIGINT    NOT NULL REFERENCES customers (customer_id) ON DELETE CASCADE ON UPDATE CASCADE,
    product_id  INTEGER   NOT NULL REFERENCES products (product_id) ON DELETE CASCADE,
    added_at    TIMESTAMP NOT NULL
);
