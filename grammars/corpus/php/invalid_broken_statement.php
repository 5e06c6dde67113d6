<?php
$x = 1 + ;
echo $x
