-- What each print job asked for and how its printers answered. The seed stores an order's price
-- and payment method "for future receipt templates", not printed on the kitchen ticket; the id
-- is the job's orderRef.
CREATE TABLE ba_print_jobs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind varchar(10) NOT NULL,
  order_folio varchar(40),
  is_reprint boolean NOT NULL,
  price varchar(40),
  payment_method varchar(60),
  printed_at timestamp(3) NOT NULL,
  results text NOT NULL
);
CREATE INDEX ix_ba_print_jobs_printed_at ON ba_print_jobs (printed_at);
