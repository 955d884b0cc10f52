import unittest

from roundmath import total


class TotalTest(unittest.TestCase):
    def test_empty_invoice_totals_zero(self):
        self.assertEqual(total([]), 0)

    def test_lines_are_rounded_before_adding(self):
        self.assertAlmostEqual(total([1.004, 1.004]), 2.0, places=2)


if __name__ == "__main__":
    unittest.main()
