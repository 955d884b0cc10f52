import unittest


class TestAlmostEqual(unittest.TestCase):
    def test_default_places_seven(self):
        self.assertAlmostEqual(measure(), 1.5)

    def test_places_keyword(self):
        self.assertAlmostEqual(measure(), 1.5, places=3)

    def test_places_positional(self):
        self.assertAlmostEqual(measure(), 1.5, 2)

    def test_delta(self):
        self.assertAlmostEqual(measure(), 1.5, delta=0.25)

    def test_delta_computed(self):
        self.assertAlmostEqual(measure(), 1.5, delta=self.tolerance)

    def test_places_computed(self):
        self.assertAlmostEqual(measure(), 1.5, places=self.places)

    def test_msg_keyword_keeps_default(self):
        self.assertAlmostEqual(measure(), 1.5, msg="close enough")

    def test_not_almost_equal_has_no_tolerance(self):
        self.assertNotAlmostEqual(measure(), 2.5)
