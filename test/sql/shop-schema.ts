// The small shop the SQL guard's suites judge statements against (guard-points, guard-scopes,
// guard-approvals): orders, their items (ON DELETE CASCADE) and a keyless notes table with duplicate rows.
export const SHOP_SCHEMA = `
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL);
CREATE TABLE items (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders (id) ON DELETE CASCADE, sku TEXT);
CREATE TABLE notes (body TEXT);
INSERT INTO orders VALUES (1, 'ann', 10.5), (2, 'bob', 20), (3, NULL, NULL), (7, 'dee', 1);
INSERT INTO items VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z');
INSERT INTO notes VALUES ('a'), ('a'), (NULL);`;
