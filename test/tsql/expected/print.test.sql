-- scenario 1: {"printerId":"3f2504e0-4f89-41d3-9a0c-0305e82c3301"}
select "fingerprint", "result" from "ba_idempotency" where "scope" = @1 and "idem_key" = @2;
insert into "ba_idempotency" ("scope", "idem_key", "fingerprint", "op", "result", "created_at", "expires_at") values (@1, @2, @3, @4, @5, @6, @7);
insert into "ba_print_jobs" ("kind", "order_folio", "is_reprint", "price", "payment_method", "printed_at", "results") values (@1, @2, @3, @4, @5, @6, @7); select cast(scope_identity() as bigint) as "id";
update "ba_idempotency" set "result" = @1 where "scope" = @2 and "idem_key" = @3;
