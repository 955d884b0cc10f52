import unittest


class TestRaises(unittest.TestCase):
    def test_context_manager_form(self):
        with self.assertRaises(KeyError):
            {}["k"]

    def test_call_form(self):
        self.assertRaises(ValueError, int, "x")

    def test_regex_forms(self):
        with self.assertRaisesRegex(TypeError, "unsupported"):
            1 + "a"
        self.assertRaisesRegex(Exception, "boom", explode)

    def test_tuple_and_lookup_error(self):
        with self.assertRaises((LookupError, ValueError)):
            [][0]
