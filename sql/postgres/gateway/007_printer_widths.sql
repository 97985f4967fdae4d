-- Thermal paper comes 48 to 112 mm wide (76 and 112 mm rolls exist besides 58 and 80), and a
-- thermal printer keeps its label fields at their defaults (the seed: "returned with default
-- values and ignored when printing"), whatever a client sent before.
ALTER TABLE gw_printers DROP CONSTRAINT gw_printers_width_mm_check;
ALTER TABLE gw_printers ADD CONSTRAINT gw_printers_width_mm_check CHECK (width_mm BETWEEN 48 AND 112);
UPDATE gw_printers
SET label_width_mm = 50, label_height_mm = 25, label_gap_mm = 2, label_dpi = 203, label_density = 8, label_speed = 4
WHERE kind = 'thermal';
